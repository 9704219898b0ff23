// QuoteA through GET /route against real local relays speaking the solver relay's JSON-RPC: a scripted one (its
// amounts and its delay chosen per test) and the devnet's own relay over the same database. The request the relay
// receives, the quote object, the intents message and the deposit call are checked field by field against
// near-facts.md "QuoteA"; a relay slower than max_wait_ms gives no QuoteA quote.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../api/server.ts';
import { startSolverRelay } from '../../devnet/relay.ts';
import { createMigratedDb } from '../harness/db.ts';
import { BlockWriter, decodedCalls, getRoute } from './helpers.ts';

const REF = 'v2.ref-finance.near';
const TGAS = 1_000_000_000_000;
const EXPIRATION = '2026-01-01T00:01:00.000Z';

/** A relay answering `quote` with `amountOut` (exact in) or `amountIn` (exact out) after `delayMs`. */
class ScriptedRelay {
  requests: unknown[] = [];
  answered = 0;
  amountOut = '5000';
  amountIn = '900';
  delayMs = 0;
  private server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const request = JSON.parse(body) as { id: number; params: Record<string, string>[] };
      this.requests.push(request);
      const p = request.params[0]!;
      const quote = {
        quote_hash: 'QuoteHash111',
        defuse_asset_identifier_in: p.defuse_asset_identifier_in,
        defuse_asset_identifier_out: p.defuse_asset_identifier_out,
        amount_in: p.exact_amount_in ?? this.amountIn,
        amount_out: p.exact_amount_out ?? this.amountOut,
        expiration_time: EXPIRATION,
      };
      setTimeout(() => {
        this.answered++;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: [quote] }));
      }, this.delayMs);
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const BASE = { max_wait_ms: '2000', slippage_type: 'Fixed', slippage: '0.01', token_in: 'alpha.near', token_out: 'beta.near' };

describe('QuoteA', () => {
  const relay = new ScriptedRelay();
  let app: FastifyInstance;
  let devnetApp: FastifyInstance;
  let devnetRelay: { url: string; close(): Promise<void> };

  beforeAll(async () => {
    const db = await createMigratedDb();
    await new BlockWriter(db).write(
      [{ dex: 'AmmA', contractId: REF, poolId: 1, state: { kind: 'simple', tokens: ['alpha.near', 'beta.near'], amounts: [1_000_000n, 2_000_000n], totalFee: 30 } }],
      [{ contractId: 'beta.near', accountId: 'alice.near' }],
    );
    app = await buildServer({ db, logLevel: 'silent', quoteRelayUrl: await relay.start() });
    await app.ready();
    devnetRelay = await startSolverRelay({ db, host: '127.0.0.1', port: 0 });
    devnetApp = await buildServer({ db, logLevel: 'silent', quoteRelayUrl: devnetRelay.url });
    await devnetApp.ready();
  });
  afterAll(async () => {
    await app?.close();
    await devnetApp?.close();
    await relay.close();
    await devnetRelay?.close();
  });

  it('asks the relay, and ranks its quote last even when it pays more', async () => {
    relay.delayMs = 0;
    const quotes = (await getRoute(app, { ...BASE, amount_in: '1000', trader_account_id: 'alice.near', referrer_id: 'ref.near', dexes: 'AmmA,QuoteA' })).json();
    // AmmA pays floor(1000·9970·2 000 000 / (10000·1 000 000 + 1000·9970)) = 1992; the relay 5000.
    expect(quotes.map((q) => [q.dex_id, q.estimated_amount])).toEqual([
      ['AmmA', { amount_out: '1992' }],
      ['QuoteA', { amount_out: '5000' }],
    ]);
    expect(relay.requests.at(-1)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'quote',
      params: [{ defuse_asset_identifier_in: 'nep141:alpha.near', defuse_asset_identifier_out: 'nep141:beta.near', exact_amount_in: '1000', min_deadline_ms: 60000 }],
    });
    const quote = quotes[1]!;
    expect(quote).toMatchObject({ deadline: EXPIRATION, has_slippage: false, worst_case_amount: { amount_out: '5000' }, token_output: 'nep141:beta.near', needs_unwrap: false });
    // alice is registered on beta.near: only the deposit into the verifier, then the message to sign.
    expect(decodedCalls(quote)).toEqual([['alpha.near', 'ft_transfer_call', { receiver_id: 'intents.near', amount: '1000', msg: '' }, 40 * TGAS, '1']]);
    const intents = quote.execution_instructions[1] as unknown as { IntentsQuote: { message_to_sign: string; quote_hash: string } };
    expect(intents.IntentsQuote.quote_hash).toBe('QuoteHash111');
    expect(JSON.parse(intents.IntentsQuote.message_to_sign)).toEqual({
      signer_id: 'alice.near',
      deadline: EXPIRATION,
      intents: [
        { intent: 'token_diff', diff: { 'nep141:alpha.near': '-1000', 'nep141:beta.near': '5000' }, referral: 'ref.near' },
        { intent: 'ft_withdraw', token: 'beta.near', receiver_id: 'alice.near', amount: '5000' },
      ],
    });
  });

  it('exact out: the relay prices the input; no trader, no QuoteA (the intents need a signer)', async () => {
    relay.delayMs = 0;
    const [quote] = (await getRoute(app, { ...BASE, amount_out: '777', trader_account_id: 'bob.near', dexes: 'QuoteA' })).json();
    expect(quote).toMatchObject({ dex_id: 'QuoteA', estimated_amount: { amount_in: '900' }, worst_case_amount: { amount_in: '900' } });
    expect((relay.requests.at(-1) as { params: Record<string, string>[] }).params[0]!.exact_amount_out).toBe('777');
    // bob is not registered on beta.near: its storage deposit comes first.
    expect(decodedCalls(quote!).map(([receiver, method, , , deposit]) => [receiver, method, deposit])).toEqual([
      ['beta.near', 'storage_deposit', '1250000000000000000000'],
      ['alpha.near', 'ft_transfer_call', '1'],
    ]);
    const asked = relay.requests.length;
    expect((await getRoute(app, { ...BASE, amount_in: '1000', dexes: 'QuoteA' })).body).toBe('[]');
    expect(relay.requests.length).toBe(asked);
  });

  it('a relay slower than max_wait_ms: the answer comes without QuoteA, before the relay answers', async () => {
    relay.delayMs = 1_500;
    const answeredBefore = relay.answered;
    const asked = relay.requests.length;
    const quotes = (await getRoute(app, { ...BASE, amount_in: '1000', max_wait_ms: '100', trader_account_id: 'alice.near' })).json();
    expect(relay.requests.length).toBe(asked + 1);
    expect(relay.answered).toBe(answeredBefore);
    expect(quotes.map((q) => q.dex_id)).toEqual(['AmmA']);
  });

  it('the devnet relay: its quote as it answers it directly', async () => {
    const params = { ...BASE, amount_in: '1000', trader_account_id: 'alice.near', dexes: 'QuoteA' };
    const [quote] = (await getRoute(devnetApp, params)).json();
    const direct = await fetch(`${devnetRelay.url}/rpc`, {
      method: 'POST',
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'quote', params: [{ defuse_asset_identifier_in: 'nep141:alpha.near', defuse_asset_identifier_out: 'nep141:beta.near', exact_amount_in: '1000' }] }),
    }).then((r) => r.json() as Promise<{ result: { amount_out: string; quote_hash: string }[] }>);
    expect(direct.result).toHaveLength(1);
    expect(quote!.estimated_amount).toEqual({ amount_out: direct.result[0]!.amount_out });
    const intents = quote!.execution_instructions.at(-1) as unknown as { IntentsQuote: { quote_hash: string } };
    expect(intents.IntentsQuote.quote_hash).toBe(direct.result[0]!.quote_hash);
  });
});
