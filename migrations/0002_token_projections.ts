// The projections of the ingestion issue: transfers, balances (current and per block), tokens with holder counts
// and supply, storage registrations. All derived from the `events` log and rebuildable from it.
import type { Kysely } from 'kysely';
import { sql } from '../db/kysely.ts';

const amount = sql`numeric(40,0)`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('transfers')
    .addColumn('block_height', 'bigint', (c) => c.notNull())
    .addColumn('receipt_id', 'text', (c) => c.notNull())
    .addColumn('index', 'integer', (c) => c.notNull())
    .addColumn('timestamp_ms', 'bigint', (c) => c.notNull())
    .addColumn('tx_hash', 'text')
    // `near` for native NEAR, else the token contract id.
    .addColumn('token', 'text', (c) => c.notNull())
    // null for a mint
    .addColumn('sender', 'text')
    // null for a burn
    .addColumn('receiver', 'text')
    .addColumn('amount', amount, (c) => c.notNull())
    .addColumn('memo', 'text')
    .addPrimaryKeyConstraint('transfers_pkey', ['block_height', 'receipt_id', 'index'])
    .execute();
  await db.schema.createIndex('transfers_token_height').on('transfers').columns(['token', 'block_height']).execute();
  await db.schema.createIndex('transfers_sender_height').on('transfers').columns(['sender', 'block_height']).execute();
  await db.schema.createIndex('transfers_receiver_height').on('transfers').columns(['receiver', 'block_height']).execute();

  // Balances are the sum of the transfers seen since indexing began: exact for accounts and tokens whose whole
  // history is indexed, relative to the start height otherwise (so they may be negative).
  await db.schema
    .createTable('balances')
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('balance', amount, (c) => c.notNull())
    .addColumn('updated_height', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('balances_pkey', ['token', 'account'])
    // Room on each page, and no index on `balance`: updates then stay on their page (HOT) and touch no index.
    .modifyEnd(sql`with (fillfactor = 70)`)
    .execute();
  await db.schema.createIndex('balances_account').on('balances').column('account').execute();

  // The balance after every block that changed it: balance at height H = the last row at or below H.
  await db.schema
    .createTable('balance_history')
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('block_height', 'bigint', (c) => c.notNull())
    .addColumn('balance', amount, (c) => c.notNull())
    .addPrimaryKeyConstraint('balance_history_pkey', ['token', 'account', 'block_height'])
    .execute();

  await db.schema
    .createTable('tokens')
    .addColumn('token', 'text', (c) => c.primaryKey())
    .addColumn('symbol', 'text')
    .addColumn('name', 'text')
    .addColumn('decimals', 'integer')
    .addColumn('icon', 'text')
    .addColumn('reference', 'text')
    // init | known | rpc: where the metadata came from
    .addColumn('metadata_source', 'text')
    // Known only when the token's creation is in the log: mints minus burns since then. null otherwise.
    .addColumn('total_supply', amount)
    .addColumn('holders', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_height', 'bigint', (c) => c.notNull())
    .addColumn('updated_height', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('storage_registrations')
    .addColumn('contract_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('deposit', amount, (c) => c.notNull())
    .addColumn('registered_height', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('storage_registrations_pkey', ['contract_id', 'account_id'])
    .execute();
  await db.schema.createIndex('storage_registrations_account').on('storage_registrations').column('account_id').execute();
}
