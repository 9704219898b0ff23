// Id parameters of the token API. An id that cannot exist (a malformed account id, a DEX id outside the registry)
// is refused with `invalid_params` (errors.ts), the rest of what breaks a rule with `bad_request`.
import { z } from 'zod';
import { DEX_IDS } from '../../dexes/index.ts';
import { isValidAccountId } from '../../near/token-id.ts';
import { INVALID_ID } from './errors.ts';

/** A client's text in an error message: JSON-quoted, at most 100 characters of it. */
const quoted = (input: unknown) => JSON.stringify(typeof input === 'string' && input.length > 100 ? `${input.slice(0, 100)}...` : input);

/** A NEAR account id, by nearcore's rules: 2 to 64 lowercase letters and digits, in parts joined by single `-`, `_`
 * or `.`. A malformed one names no account (a typo, a capital letter): refused rather than answered empty. */
export const accountIdParam = z
  .string()
  .refine(isValidAccountId, { params: INVALID_ID, error: (issue) => `${quoted(issue.input)} is not a NEAR account id` })
  .meta({ minLength: 2, maxLength: 64 });

/** A token as the tables name it: `near`, a contract id, or `inner-nep141:<contract id>` (up to 77 characters). */
export const tokenIdParam = z.string().min(2).max('inner-nep141:'.length + 64);

const KNOWN_DEXES: ReadonlySet<string> = new Set(DEX_IDS);

/** A DEX id of the registry (the OpenAPI document lists them). */
export const dexParam = z
  .string()
  .refine((id) => KNOWN_DEXES.has(id), { params: INVALID_ID, error: (issue) => `${quoted(issue.input)} is not a DEX id: expected one of ${DEX_IDS.join(', ')}` })
  .meta({ enum: [...DEX_IDS] })
  .describe('DEX id, e.g. AmmA');

/** A DEX's own pool id (AmmA `0`, AmmDclA `<token x>|<token y>|<fee>`, Launch its token): unique within its DEX. */
export const poolIdParam = z.string().min(1).max(200).describe("the DEX's own pool id (pools.get lists them)");
