// Id parameters of the token API.
import { z } from 'zod';

/** A NEAR account id: 2 to 64 characters. */
export const accountIdParam = z.string().min(2).max(64);

/** A token as the tables name it: `near`, a contract id, or `inner-nep141:<contract id>` (up to 77 characters). */
export const tokenIdParam = z.string().min(2).max('inner-nep141:'.length + 64);
