// Token metadata over NEAR JSON-RPC, end to end: a real local JSON-RPC server answers `ft_metadata`, and the
// answers enter the event log and the tokens table, survive a rebuild, and are asked only once.
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingest } from '../indexer/pipeline.ts';
import { rebuild, replay } from '../indexer/replay.ts';
import { filesSource } from '../indexer/sources/files.ts';
import { rpcMetadata } from '../indexer/token-metadata.ts';
import { createMigratedDb, tableChecksums } from './harness/db.ts';
import { FIXTURES_DIR } from './harness/fixtures.ts';

const never = new AbortController().signal;
const KAICHING = { spec: 'ft-1.0.0', name: 'Kaiching', symbol: 'KAI', decimals: 0, icon: null, reference: null };

describe('ft_metadata over NEAR JSON-RPC', () => {
  const asked: string[] = [];
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const { id, params } = JSON.parse(body);
        asked.push(params.account_id);
        const answer =
          params.account_id === 'wallet.kaiching'
            ? { jsonrpc: '2.0', id, result: { result: [...Buffer.from(JSON.stringify(KAICHING))], logs: [], block_height: 1, block_hash: 'x' } }
            : { jsonrpc: '2.0', id, error: { name: 'HANDLER_ERROR', cause: { name: 'UNKNOWN_ACCOUNT', info: {} }, code: -32000, message: 'Server error' } };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('asks once per token without chain metadata, logs the answer as an event, and rebuild and replay keep it', async () => {
    const db = await createMigratedDb();
    const enrich = rpcMetadata(db, url, pino({ level: 'silent' }));
    const source = filesSource(path.join(FIXTURES_DIR, 'mainnet'));
    await ingest({ db, source, from: 105793821, to: 114081912, signal: never, enrich });

    // wallet.kaiching appears in both blocks and is asked once; every asked contract is a token of the log.
    expect(asked.filter((a) => a === 'wallet.kaiching')).toEqual(['wallet.kaiching']);
    expect(new Set(asked).size).toBe(asked.length);
    const tokens = await db.pool.query(`select distinct payload->>'contractId' as c from events where kind in ('ft_transfer', 'ft_mint', 'ft_burn')`);
    expect(tokens.rows.map((r) => r.c)).toEqual(expect.arrayContaining(asked));

    const row = await db.kysely.selectFrom('tokens').selectAll().where('token', '=', 'wallet.kaiching').executeTakeFirstOrThrow();
    expect(row).toMatchObject({ symbol: 'KAI', name: 'Kaiching', decimals: 0, metadata_source: 'rpc' });
    const logged = await db.kysely.selectFrom('events').select(['receipt_id', 'kind']).where('receipt_id', 'like', 'rpc:%').execute();
    expect(logged).toEqual([{ receipt_id: 'rpc:ft_metadata:wallet.kaiching', kind: 'token_metadata' }]);

    const before = await tableChecksums(db);
    await rebuild(db);
    expect(await tableChecksums(db)).toEqual(before);
    // A replay re-reads the blocks, which cannot give what RPC said: those events are kept.
    await replay({ db, source, from: 105793821, to: 114081912, signal: never });
    expect(await tableChecksums(db)).toEqual(before);
  });
});
