// The height of an account's first balance of a token, beside its current one: a balance at a height skips the
// tokens the account did not hold yet, which would otherwise probe every history partition below that height and
// find nothing (bench:scale, balances at a height: p99 x2.08 at 100x). Null only where the history has no row.
import type { Kysely } from 'kysely';
import { sql } from '../db/kysely.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table balances add column first_height bigint`.execute(db);
  await sql`
    update balances b set first_height = f.height
    from (select token, account, min(block_height) as height from balance_history group by token, account) f
    where f.token = b.token and f.account = b.account`.execute(db);
}
