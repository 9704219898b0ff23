// Chain continuity in the ingestion pipeline. A live source (neardata here, against a local server speaking its
// protocol) must give a chain: each block's prev_hash is the hash of the last indexed block, heights the chain
// skipped are recorded in blocks.gap_before, and a block that does not continue the indexed chain stops the run
// with a ContinuityError that leaves the database untouched. The files source is sparse and exempt.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Db } from '../db/connect.ts';
import { normalizeStreamerMessage } from '../near/block.ts';
import { decodeEvents } from '../indexer/decode.ts';
import { ContinuityError, ingest } from '../indexer/pipeline.ts';
import { filesSource } from '../indexer/sources/files.ts';
import { neardataSource } from '../indexer/sources/neardata.ts';
import { createMigratedDb, tableChecksums } from './harness/db.ts';

import { readMessage, type Message } from './sources/helpers.ts';

const never = new AbortController().signal;
const FAST = { backoff: { initialMs: 20, maxMs: 200 } };

// Small real snake_case blocks, re-labelled in turn; 70834059 carries a usn ft_transfer, so the chain has events.
const FIXTURES = ['mainnet/70834059.json', 'mainnet/34834053.json', 'mainnet/70834061.json', 'testnet/120572296.json'];

/**
 * Real blocks re-labelled into a chain at `heights`: block `h` gets hash `${tag}${h}`, and prev_hash the hash of
 * the previous height in the list (the first one gets `parent`). Heights left out of the list are ones the chain
 * skipped.
 */
function chain(heights: number[], parent: string, tag: string): Map<number, Message> {
  const blocks = new Map<number, Message>();
  let prev = parent;
  for (const height of heights) {
    const message = readMessage(FIXTURES[height % FIXTURES.length]!);
    const header = { ...(message.block.header as object), height, hash: `${tag}${height}`, prev_hash: prev };
    blocks.set(height, { ...message, block: { ...message.block, header } });
    prev = `${tag}${height}`;
  }
  return blocks;
}

/** Every event the blocks decode to: what the log must hold for them. */
const eventsOf = (blocks: Map<number, Message>): number =>
  [...blocks.values()].reduce((n, m) => n + decodeEvents(normalizeStreamerMessage(m)).length, 0);

/**
 * A local server speaking neardata's protocol over `blocks`: GET /v0/last_block/final redirects (302) to
 * /v0/block/{head}; GET /v0/block/{h} answers the combined snake_case message, JSON `null` for a height up to the
 * head that `blocks` lacks (the chain skipped it), 404 BLOCK_DOES_NOT_EXIST above the head.
 */
async function serveNeardata(blocks: Map<number, Message>): Promise<{ url: string; close: () => Promise<void> }> {
  const head = Math.max(...blocks.keys());
  const server = http.createServer((req, res) => {
    const url = req.url ?? '';
    if (url === '/v0/last_block/final') {
      res.writeHead(302, { location: `/v0/block/${head}` }).end();
      return;
    }
    const height = Number(/^\/v0\/block\/(\d+)$/.exec(url)?.[1] ?? NaN);
    if (!Number.isInteger(height)) {
      res.writeHead(404).end();
    } else if (height > head) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'The block is too far in the future', type: 'BLOCK_DOES_NOT_EXIST' }));
    } else {
      const message = blocks.get(height);
      res.writeHead(200, { 'content-type': 'application/json' }).end(message === undefined ? 'null' : JSON.stringify(message));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

// The indexed chain: 2000..2009, the chain skipped 2004. (Built only when the fixtures are there: vitest runs a
// skipped describe's body too, and this file must load without them.)
const MAIN = chain([2000, 2001, 2002, 2003, 2005, 2006, 2007, 2008, 2009], 'main-1999', 'main-');
// Another chain at the next heights: its 2010 follows a fork-2009 we never indexed.
const FORK = chain([2010, 2011, 2012], 'fork-2009', 'fork-');

async function blocksOf(db: Db): Promise<{ height: number; hash: string; prev_hash: string; gap_before: number }[]> {
  const { rows } = await db.pool.query<{ height: number; hash: string; prev_hash: string; gap_before: number }>(
    'select height::int, hash, prev_hash, gap_before::int from blocks order by height',
  );
  return rows;
}

async function count(db: Db, sql: string): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>(sql);
  return rows[0]!.n;
}

async function checkpoint(db: Db): Promise<{ height: number; hash: string } | undefined> {
  const { rows } = await db.pool.query<{ height: number; hash: string }>(`select height::int, hash from checkpoints where name = 'indexer'`);
  return rows[0];
}

describe('chain continuity', () => {
  const servers: { close: () => Promise<void> }[] = [];
  const tmpDirs: string[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });
  afterAll(() => {
    for (const dir of tmpDirs) rmSync(dir, { recursive: true, force: true });
  });
  async function neardata(blocks: Map<number, Message>) {
    const server = await serveNeardata(blocks);
    servers.push(server);
    return neardataSource(`neardata:${server.url}`, FAST);
  }

  /** A fresh database holding MAIN, ingested from neardata. */
  async function indexedMain(): Promise<Db> {
    const db = await createMigratedDb();
    const result = await ingest({ db, source: await neardata(MAIN), from: 2000, to: 2009, signal: never });
    expect(result).toEqual({ blocks: 9, events: eventsOf(MAIN), height: 2009 });
    return db;
  }

  it('neardata: a skipped height (null) is recorded in gap_before, every other block is indexed', async () => {
    const db = await indexedMain();
    const expected = [...MAIN.keys()].map((height) => ({
      height,
      hash: `main-${height}`,
      prev_hash: height === 2000 ? 'main-1999' : height === 2005 ? 'main-2003' : `main-${height - 1}`,
      gap_before: height === 2005 ? 1 : 0,
    }));
    expect(await blocksOf(db)).toEqual(expected);
    expect(await checkpoint(db)).toEqual({ height: 2009, hash: 'main-2009' });
    // The events of every block are in the log, and the usn transfer of the blocks made from 70834059 projected.
    expect(eventsOf(MAIN)).toBeGreaterThan(0);
    expect(await count(db, 'select count(*)::int as n from events')).toBe(eventsOf(MAIN));
    expect(await count(db, `select count(distinct block_height)::int as n from transfers where token = 'usn'`)).toBe(
      [...MAIN.keys()].filter((h) => h % FIXTURES.length === 0).length,
    );
  });

  it('neardata: a next block whose prev_hash is not the checkpoint hash is refused, and nothing is written', async () => {
    const db = await indexedMain();
    const before = await tableChecksums(db);

    const error: unknown = await ingest({ db, source: await neardata(FORK), to: 2012, signal: never }).then(
      () => undefined,
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(ContinuityError);
    const message = (error as Error).message;
    expect(message).toContain('block 2010');
    expect(message).toContain('fork-2010'); // its hash
    expect(message).toContain('fork-2009'); // its prev_hash
    expect(message).toContain('main-2009'); // the checkpoint's hash
    expect(message).toContain('2009'); // the checkpoint's height
    expect(message).toMatch(/dexlake replay/);
    expect(message).toMatch(/--from/);
    expect(await tableChecksums(db)).toEqual(before);

    // The check is against the checkpoint, not height - 1: the true continuation, after a skipped 2010, is taken.
    const next = chain([2011, 2012], 'main-2009', 'main-');
    const result = await ingest({ db, source: await neardata(next), to: 2012, signal: never });
    expect(result).toMatchObject({ blocks: 2, height: 2012 });
    expect((await blocksOf(db)).slice(-2)).toEqual([
      { height: 2011, hash: 'main-2011', prev_hash: 'main-2009', gap_before: 1 },
      { height: 2012, hash: 'main-2012', prev_hash: 'main-2011', gap_before: 0 },
    ]);
  });

  it('files: the same mismatched chain is accepted, the source being sparse', async () => {
    // A files source is a set of fixture blocks that are usually years apart: consecutive files never link by
    // prev_hash, so it declares itself sparse and the pipeline does not check continuity for it.
    const db = await indexedMain();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dexlake-continuity-'));
    tmpDirs.push(dir);
    for (const [height, message] of FORK) writeFileSync(path.join(dir, `${height}.json`), JSON.stringify(message));

    const source = filesSource(dir);
    expect(source.sparse).toBe(true);
    const result = await ingest({ db, source, signal: never });

    expect(result).toEqual({ blocks: 3, events: eventsOf(FORK), height: 2012 });
    expect((await blocksOf(db)).slice(-3)).toEqual([
      { height: 2010, hash: 'fork-2010', prev_hash: 'fork-2009', gap_before: 0 },
      { height: 2011, hash: 'fork-2011', prev_hash: 'fork-2010', gap_before: 0 },
      { height: 2012, hash: 'fork-2012', prev_hash: 'fork-2011', gap_before: 0 },
    ]);
    expect(await checkpoint(db)).toEqual({ height: 2012, hash: 'fork-2012' });
  });
});
