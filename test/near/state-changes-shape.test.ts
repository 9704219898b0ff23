// The realnet's contract-storage state changes (`data_update`, `data_deletion`, written by devnet/realnet/chain.ts
// through near/lake-json.ts) have the JSON shape of real mainnet ones: the same keys at every level and the same
// value types, compared field by field against every such change of the snake_case mainnet fixture blocks, and
// their string fields in the same formats (base64 that round-trips, base58 32-byte receipt hashes).
import { beforeAll, describe, expect, it } from 'vitest';
import { realnetMarket } from '../../devnet/realnet/wasm.ts';
import { fixtureFiles } from '../harness/fixtures.ts';
import { readFixture, readSources } from './helpers.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
const KINDS = ['data_update', 'data_deletion'];

/** The shape of a JSON value: an object's sorted keys with their shapes, or the value's type. */
function shape(v: Json): unknown {
  if (v === null) return 'null';
  if (Array.isArray(v)) return v.map(shape);
  if (typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, shape(v[k]!)]));
  return typeof v;
}

function stateChanges(message: Json): Json[] {
  const shards = (message as { shards: { state_changes?: Json[] }[] }).shards;
  return shards.flatMap((s) => s.state_changes ?? []).filter((c) => KINDS.includes((c as { type: string }).type));
}

const B58 = /^[1-9A-HJ-NP-Za-km-z]+$/;
const b58Len = (s: string): number => {
  let v = 0n;
  for (const c of s) v = v * 58n + BigInt('123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'.indexOf(c));
  let n = 0;
  while (v > 0n) (v >>= 8n), n++;
  return n + (/^1*/.exec(s)![0].length);
};
/** The formats of a change's strings, by path (so `key_base64` must be base64 that decodes and re-encodes). */
function formats(c: Json): Record<string, string> {
  const x = c as { cause: { type: string; receipt_hash: string }; type: string; change: Record<string, string> };
  const out: Record<string, string> = {
    'cause.type': x.cause.type,
    'cause.receipt_hash': B58.test(x.cause.receipt_hash) && b58Len(x.cause.receipt_hash) === 32 ? 'base58 32 bytes' : `bad ${x.cause.receipt_hash}`,
    type: x.type,
  };
  for (const k of ['key_base64', 'value_base64']) {
    const s = x.change[k];
    if (s !== undefined) out[`change.${k}`] = Buffer.from(s, 'base64').toString('base64') === s ? 'base64' : `bad ${s}`;
  }
  out['change.account_id'] = /^[a-z0-9._-]{2,64}$/.test(x.change.account_id!) ? 'account id' : `bad ${x.change.account_id}`;
  return out;
}

describe('realnet state changes have mainnet\'s JSON shape', () => {
  // Mainnet: every snake_case fixture (the camelCase ones are near-lake-framework's rewrite of the same data).
  let mainnet: Json[] = [];
  const realnet: Json[] = [];
  beforeAll(() => {
    const snake = new Set(readSources().filter((r) => r.net === 'mainnet' && r.casing === 'snake_case').map((r) => String(r.height)));
    mainnet = fixtureFiles('mainnet')
      .filter((f) => snake.has(/(\d+)\.json$/.exec(f)![1]!))
      .flatMap((f) => stateChanges(readFixture(f) as Json));
    // 40 blocks of the seeded market: setup, trading, the hosted models (both kinds appear).
    const market = realnetMarket(undefined, { seed: 'shape', models: true, history: false });
    for (let i = 0; i < 40; i++) realnet.push(...stateChanges(market.next() as Json));
  });

  for (const kind of KINDS) {
    it(`${kind}: one shape on mainnet, and every realnet change has it, key by key`, () => {
      const ours = realnet.filter((c) => (c as { type: string }).type === kind);
      const theirs = mainnet.filter((c) => (c as { type: string }).type === kind);
      expect(ours.length).toBeGreaterThan(0);
      expect(theirs.length).toBeGreaterThan(0);
      const mainnetShapes = [...new Set(theirs.map((c) => JSON.stringify(shape(c))))];
      expect(mainnetShapes).toHaveLength(1);
      const want = JSON.parse(mainnetShapes[0]!) as unknown;
      for (const c of ours) expect(shape(c)).toEqual(want);
    });

    it(`${kind}: the same string formats as on mainnet (cause, base58 hash, base64 key and value, account id)`, () => {
      const fmt = (cs: Json[]) => [...new Set(cs.filter((c) => (c as { type: string }).type === kind).map((c) => JSON.stringify(formats(c))))];
      const theirs = fmt(mainnet);
      expect(theirs).toHaveLength(1);
      expect(fmt(realnet)).toEqual(theirs);
    });
  }
});
