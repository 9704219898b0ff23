// The realnet: Ref's exchange (every vendored release), wNEAR and two NEP-141 example tokens executed by their own
// wasm in near/vm, receipt by receipt as nearcore runs them (devnet/realnet/chain.ts), and the indexer's decoders
// reading the blocks they produce. The contract is the judge: every pool state the AmmA decoder reads equals the
// contract's own `get_pool` after that block, every swap it reads equals what the contract paid (the `ft_transfer`
// receipts it created), and nothing is undecoded.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeAmmA } from '../../dexes/amm-a/decode.ts';
import type { AmmAEvent } from '../../dexes/amm-a/events.ts';
import { normalizeStreamerMessage, type Block, type ReceiptOutcome } from '../../near/block.ts';
import { decodeBlock } from '../../near/decode.ts';
import type { CoreEvent } from '../../near/events.ts';
import type { ExecutedReceipt } from '../../devnet/realnet/chain.ts';
import { RealnetMarket } from '../../devnet/realnet/market.ts';
import { ALICE, BOB, REF, refScenario, TOKEN_A, TOKEN_B, WRAP, type RefScenario } from '../../devnet/realnet/scenario.ts';
import { marketWasm, REF_RELEASES, refWasm, vendoredWasm, type RefRelease } from '../../devnet/realnet/wasm.ts';

const run = (release: RefRelease, seed?: string): RefScenario =>
  refScenario({ ref: refWasm(release), wNear: vendoredWasm('w_near'), ftSdk3: vendoredWasm('fungible_token_sdk3.1'), ftSdk4: vendoredWasm('fungible_token_sdk4.1') }, seed);

const method = (r: ExecutedReceipt): string => {
  const a = r.receipt.actions[0]!;
  return a.kind === 'FunctionCall' ? a.method : a.kind;
};
const argsOf = (r: ExecutedReceipt): Record<string, string> => {
  const a = r.receipt.actions[0]!;
  return a.kind === 'FunctionCall' ? (JSON.parse(new TextDecoder().decode(a.args)) as Record<string, string>) : {};
};
const ok = (r: ExecutedReceipt): boolean => !('Failure' in r.status);
const decodeValue = (status: ExecutedReceipt['status']): unknown =>
  'SuccessValue' in status && status.SuccessValue !== '' ? JSON.parse(Buffer.from(status.SuccessValue, 'base64').toString('utf8')) : undefined;

/** The receipts of one transaction, in execution order. */
const receiptsOf = (s: RefScenario, txHash: string) => s.chain.executed.filter((r) => r.receipt.txHash === txHash);

describe.each(REF_RELEASES)('realnet: Ref %s, wNEAR and two NEP-141 tokens run by their own code', (release) => {
  const s = run(release);
  const blocks: Block[] = s.blocks.map((m) => normalizeStreamerMessage(m));
  const amm = blocks.map((b) => decodeAmmA(b, { contractId: REF }));
  const core = blocks.map((b) => decodeBlock(b));

  it('every transaction of the script succeeded but the two meant to fail, and every receipt has run', () => {
    const failed = s.chain.executed.filter((r) => !ok(r)).map((r) => `${method(r)}: ${JSON.stringify(r.status)}`);
    expect(failed).toHaveLength(2);
    expect(failed[0]).toMatch(/^add_simple_pool: /);
    expect(failed[1]).toMatch(/^ft_on_transfer: .*E68: slippage error/);
    expect(s.chain.pendingReceipts()).toBe(0);
  });

  it('an instant swap: ft_transfer_call in its block, ft_on_transfer in the next, then the payout and the resolve, then the callback', () => {
    const rs = receiptsOf(s, s.steps.swap.txHash);
    const h = s.steps.swap.height;
    expect(rs.map((r) => [method(r), r.receipt.receiverId, r.height - h])).toEqual([
      ['ft_transfer_call', TOKEN_A, 0],
      ['ft_on_transfer', REF, 1],
      // The exchange's payout (created by ft_on_transfer) and the token's resolve (waiting on ft_on_transfer's value).
      ['ft_transfer', WRAP, 2],
      ['ft_resolve_transfer', TOKEN_A, 2],
      ['exchange_callback_post_withdraw', REF, 3],
    ]);
    const [call, onTransfer, payout, resolve, callback] = rs as [ExecutedReceipt, ExecutedReceipt, ExecutedReceipt, ExecutedReceipt, ExecutedReceipt];
    expect(rs.every(ok)).toBe(true);
    // The token's call returns its resolve's result: a promise.
    expect(call.status).toEqual({ SuccessReceiptId: resolve.receipt.id });
    expect(call.created).toEqual([onTransfer.receipt.id, resolve.receipt.id]);
    expect(onTransfer.created).toEqual([payout.receipt.id, callback.receipt.id]);
    expect(onTransfer.receipt.predecessorId).toBe(TOKEN_A);
    expect(onTransfer.receipt.signerId).toBe(BOB);
    // The exchange used all of it: the resolve is given "0", and refunds nothing.
    expect(decodeValue(onTransfer.status)).toBe('0');
    expect(resolve.promiseResults).toEqual([{ status: 'successful', value: new TextEncoder().encode('"0"') }]);
    expect(decodeValue(resolve.status)).toBe(argsOf(call).amount);
    // The callback is given the payout's result (ft_transfer returns nothing).
    expect(callback.promiseResults).toEqual([{ status: 'successful', value: new Uint8Array(0) }]);
    expect(argsOf(payout).receiver_id).toBe(BOB);
    expect(BigInt(argsOf(payout).amount!)).toBeGreaterThan(0n);
    for (const r of rs) expect(r.gasBurnt).toBeGreaterThan(0n);
  });

  it('a swap refused by its minimum (E68): no payout, the resolve is told of the failure and gives the tokens back', () => {
    const rs = receiptsOf(s, s.steps.slippage.txHash);
    const h = s.steps.slippage.height;
    expect(rs.map((r) => [method(r), ok(r), r.height - h])).toEqual([
      ['ft_transfer_call', true, 0],
      ['ft_on_transfer', false, 1],
      ['ft_resolve_transfer', true, 2],
    ]);
    const [call, onTransfer, resolve] = rs as [ExecutedReceipt, ExecutedReceipt, ExecutedReceipt];
    expect(onTransfer.created).toEqual([]);
    expect(resolve.promiseResults).toEqual([{ status: 'failed' }]);
    // Nothing was used: the resolve returns 0 used, and the token logs the refund from the exchange to bob.
    expect(decodeValue(resolve.status)).toBe('0');
    const refunds = core[resolve.height - blocks[0]!.height]!.filter((e): e is Extract<CoreEvent, { kind: 'ft_transfer' }> => e.kind === 'ft_transfer' && e.receiptId === resolve.receipt.id);
    expect(refunds.map((e) => [e.contractId, e.from, e.to, e.amount])).toEqual([[TOKEN_B, REF, BOB, BigInt(argsOf(call).amount!)]]);
    // Bob holds what he held before the swap.
    expect(s.chain.view(TOKEN_B, 'ft_balance_of', { account_id: BOB })).toBe(String(10n * 10n ** 24n - 2n * 10n ** 24n));
  });

  it('a refused call with a deposit: the deposit comes back in a refund receipt from system, in the next block', () => {
    const rs = receiptsOf(s, s.steps.refused.txHash);
    const h = s.steps.refused.height;
    expect(rs.map((r) => [method(r), r.receipt.predecessorId, r.receipt.receiverId, ok(r), r.height - h])).toEqual([
      ['add_simple_pool', ALICE, REF, false, 0],
      ['Transfer', 'system', ALICE, true, 1],
    ]);
    const [call, refund] = rs as [ExecutedReceipt, ExecutedReceipt];
    expect(call.created).toEqual([refund.receipt.id]);
    expect(refund.receipt.actions).toEqual([{ kind: 'Transfer', deposit: 1n }]);
    expect(refund.gasBurnt).toBe(0n);
    const block = blocks[refund.height - blocks[0]!.height]!;
    const transfers = decodeBlock(block).filter((e) => e.kind === 'near_transfer');
    expect(transfers.map((e) => e.kind === 'near_transfer' && [e.from, e.to, e.amount, e.refund])).toEqual([['system', ALICE, 1n, true]]);
  });

  it('the blocks are what the indexer reads: receipts later than their transaction carry its hash, outcomes their ids', () => {
    const outcomes = blocks.flatMap((b) => b.shards.flatMap((sh) => sh.receiptOutcomes));
    expect(outcomes.length).toBe(s.chain.executed.length);
    expect(outcomes.every((o: ReceiptOutcome) => o.txHash !== null)).toBe(true);
    const byId = new Map(outcomes.map((o) => [o.receiptId, o]));
    for (const r of s.chain.executed) {
      const o = byId.get(r.receipt.id)!;
      expect(o.txHash).toBe(r.receipt.txHash);
      expect(o.receiptIds).toEqual(r.created);
      expect(o.gasBurnt).toBe(Number(r.gasBurnt));
      expect(o.status.kind).toBe(Object.keys(r.status)[0]);
    }
    // Heights follow on, hashes chain.
    blocks.forEach((b, i) => i > 0 && expect(b.prevHash).toBe(blocks[i - 1]!.hash));
  });

  it('decodeAmmA: every pool state equals the contract\'s get_pool after that block', () => {
    let states = 0;
    blocks.forEach((b, i) => {
      const views = s.poolViews.get(b.height)!;
      for (const e of amm[i]!.filter((x): x is Extract<AmmAEvent, { kind: 'pool_state' }> => x.kind === 'pool_state')) {
        const view = views[e.poolId]!;
        expect(e.state.kind).toBe('simple');
        expect(e.state.tokens).toEqual(view.token_account_ids);
        expect(e.state.amounts.map(String)).toEqual(view.amounts);
        expect(e.state.totalFee).toBe(view.total_fee);
        expect(String(e.state.sharesTotalSupply)).toBe(view.shares_total_supply);
        states++;
      }
    });
    expect(states).toBeGreaterThanOrEqual(6);
  });

  it('decodeAmmA: the swaps are the amounts the contract paid, hop by hop', () => {
    const swaps = amm.flat().filter((e): e is Extract<AmmAEvent, { kind: 'swap' }> => e.kind === 'swap');
    const onTransfer = (txHash: string) => receiptsOf(s, txHash).find((r) => method(r) === 'ft_on_transfer')!;
    const payout = (txHash: string) => receiptsOf(s, txHash).find((r) => method(r) === 'ft_transfer')!;
    const one = onTransfer(s.steps.swap.txHash);
    const two = onTransfer(s.steps.twoHop.txHash);
    expect(swaps.map((e) => [e.receiptId, e.poolId, e.trader, e.tokenIn, e.tokenOut])).toEqual([
      [one.receipt.id, 0, BOB, TOKEN_A, WRAP],
      [two.receipt.id, 1, BOB, TOKEN_B, WRAP],
      [two.receipt.id, 0, BOB, WRAP, TOKEN_A],
    ]);
    expect(swaps[0]!.amountIn).toBe(10n ** 24n);
    expect(swaps[0]!.amountOut).toBe(BigInt(argsOf(payout(s.steps.swap.txHash)).amount!));
    expect(swaps[1]!.amountIn).toBe(2n * 10n ** 24n);
    expect(swaps[2]!.amountIn).toBe(swaps[1]!.amountOut);
    expect(swaps[2]!.amountOut).toBe(BigInt(argsOf(payout(s.steps.twoHop.txHash)).amount!));
    // And that is what bob holds of the outputs.
    expect(s.chain.view(WRAP, 'ft_balance_of', { account_id: BOB })).toBe(String(swaps[0]!.amountOut));
  });

  it('near/decode: the token transfers of the swaps, in both log families and wNEAR\'s, and nothing is undecoded', () => {
    const all = core.flat();
    const transfers = all.filter((e): e is Extract<CoreEvent, { kind: 'ft_transfer' }> => e.kind === 'ft_transfer');
    const has = (contractId: string, from: string, to: string) => transfers.some((e) => e.contractId === contractId && e.from === from && e.to === to);
    expect(has(TOKEN_A, BOB, REF)).toBe(true); // near-sdk 3.1: `Transfer … from … to …`
    expect(has(TOKEN_B, BOB, REF)).toBe(true); // near-sdk 4.1: EVENT_JSON ft_transfer
    expect(has(WRAP, REF, BOB)).toBe(true); // w_near: the payout
    expect(has(TOKEN_A, REF, BOB)).toBe(true); // the two-hop payout
    expect(all.filter((e) => e.kind === 'ft_mint' && e.contractId === WRAP)).toHaveLength(1); // near_deposit
    expect(all.filter((e) => e.kind === 'undecoded')).toEqual([]);
    expect(amm.flat().filter((e) => e.kind === 'undecoded')).toEqual([]);
  });

  it('liquidity: decodeAmmA reads the adds and the removal with the amounts the contract returned', () => {
    const liquidity = amm.flat().filter((e): e is Extract<AmmAEvent, { kind: 'liquidity' }> => e.kind === 'liquidity');
    expect(liquidity.map((e) => [e.poolId, e.action, e.provider])).toEqual([
      [0, 'add', ALICE],
      [1, 'add', ALICE],
      [0, 'remove', ALICE],
    ]);
    const remove = receiptsOf(s, s.steps.removeLiquidity.txHash)[0]!;
    expect(liquidity[2]!.amounts.map(String)).toEqual(decodeValue(remove.status));
    expect(liquidity[2]!.shares).toBe(10n ** 23n);
  });

  it('a withdrawal from the exchange: its ft_transfer in the next block, the callback after it with its result', () => {
    const rs = receiptsOf(s, s.steps.withdraw.txHash);
    const h = s.steps.withdraw.height;
    expect(rs.map((r) => [method(r), r.receipt.receiverId, ok(r), r.height - h])).toEqual([
      ['withdraw', REF, true, 0],
      ['ft_transfer', WRAP, true, 1],
      ['exchange_callback_post_withdraw', REF, true, 2],
    ]);
    expect(rs[2]!.promiseResults).toEqual([{ status: 'successful', value: new Uint8Array(0) }]);
    const moved = core[rs[1]!.height - blocks[0]!.height]!.filter((e) => e.kind === 'ft_transfer' && e.receiptId === rs[1]!.receipt.id);
    expect(moved.map((e) => e.kind === 'ft_transfer' && [e.contractId, e.from, e.to, e.amount])).toEqual([[WRAP, REF, ALICE, 5n * 10n ** 24n]]);
  });

  it('unwrapping: wrap.near burns and sends the NEAR in a Transfer receipt of the next block', () => {
    const rs = receiptsOf(s, s.steps.unwrap.txHash);
    const h = s.steps.unwrap.height;
    expect(rs.map((r) => [method(r), r.receipt.predecessorId, r.receipt.receiverId, r.height - h])).toEqual([
      ['near_withdraw', ALICE, WRAP, 0],
      ['Transfer', WRAP, ALICE, 1],
    ]);
    const events = [...core[h - blocks[0]!.height]!, ...core[h + 1 - blocks[0]!.height]!].filter((e) => e.txHash === s.steps.unwrap.txHash);
    expect(events.map((e) => (e.kind === 'ft_burn' ? [e.kind, e.contractId, e.owner, e.amount] : e.kind === 'near_transfer' ? [e.kind, e.from, e.to, e.amount, e.refund] : [e.kind]))).toEqual([
      ['ft_burn', WRAP, ALICE, 3n * 10n ** 24n],
      // w_near sends the attached yocto back with the NEAR (`transfer(amount + 1)`): the contract's own behaviour.
      ['near_transfer', WRAP, ALICE, 3n * 10n ** 24n + 1n, false],
    ]);
  });

  it('NEAR is conserved: deposits go to the contracts, refunds and transfers come back (gas is not charged)', () => {
    const accounts = [REF, WRAP, TOKEN_A, TOKEN_B, 'owner.near', ALICE, BOB];
    const total = accounts.reduce((sum, a) => sum + s.chain.balance(a), 0n);
    expect(total).toBe(4n * 100n * 10n ** 24n + 3n * 10_000n * 10n ** 24n);
  });

  it('state changes: one per receipt and key (the receipt\'s last value), in trie-key order, caused by successful receipts of the block', () => {
    blocks.forEach((b) => {
      const outcomes = new Map(b.shards[0]!.receiptOutcomes.map((o) => [o.receiptId, o]));
      const changes = b.shards[0]!.stateChanges;
      const seen = new Set<string>();
      let previous = '';
      for (const c of changes) {
        expect(['data_update', 'data_deletion']).toContain(c.type);
        const cause = outcomes.get(c.cause!.receiptHash!)!;
        expect(cause.executorId).toBe(c.change.accountId);
        expect(['SuccessValue', 'SuccessReceiptId']).toContain(cause.status.kind);
        const key = `${c.change.accountId},${Buffer.from(c.change.keyBase64!, 'base64').toString('latin1')}`;
        expect(seen.has(`${key}|${cause.receiptId}`)).toBe(false);
        seen.add(`${key}|${cause.receiptId}`);
        expect(Buffer.compare(Buffer.from(previous, 'latin1'), Buffer.from(key, 'latin1'))).toBeLessThanOrEqual(0);
        previous = key;
      }
    });
  });

  it('the release\'s own log formats', () => {
    const refLogs = blocks.flatMap((b) => b.shards.flatMap((sh) => sh.receiptOutcomes)).filter((o) => o.executorId === REF).flatMap((o) => o.logs);
    expect(refLogs.filter((l) => l.startsWith('Swapped '))).toHaveLength(3);
    const shares = refLogs.filter((l) => /^Exchange \S+ got \d+ shares/.test(l));
    expect(shares).toHaveLength(release === '1.6.2' ? 0 : 3);
  });
});

describe('realnet: same script, same bytes', () => {
  it('two runs of the Ref 1.9.17 script give byte-identical blocks; another seed gives other hashes', () => {
    const digest = (s: RefScenario) => createHash('sha256').update(JSON.stringify(s.blocks)).digest('hex');
    const a = run('1.9.17');
    const b = run('1.9.17');
    expect(digest(a)).toBe(digest(b));
    expect(digest(run('1.9.17', 'another seed'))).not.toBe(digest(a));
  });

  it('two runs of the seeded market (40 blocks, swaps by output too) give byte-identical blocks; another seed another chain', () => {
    const market = (seed: string) => {
      const m = new RealnetMarket(marketWasm('1.9.17'), { seed, byOutput: true });
      const blocks = Array.from({ length: 40 }, () => m.next());
      return { swaps: m.swaps, blocks };
    };
    const digest = (blocks: unknown[]) => createHash('sha256').update(JSON.stringify(blocks)).digest('hex');
    const a = market('same');
    expect(a.swaps.length).toBeGreaterThan(5);
    expect(digest(market('same').blocks)).toBe(digest(a.blocks));
    expect(digest(market('other').blocks)).not.toBe(digest(a.blocks));
  });
});
