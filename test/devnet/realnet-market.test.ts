// The realnet's seeded market (devnet/realnet/market.ts) for 120 blocks on the real contracts, for every vendored Ref
// release, read by the decoders alone: after every block, each pool state decodeAmmA reads equals the contract's own
// `get_pool`; every swap it reads is hop for hop what the trader asked and what the contract paid; every refused
// swap's tokens come back; the traders' balances summed from the decoded transfers, mints and burns equal the tokens'
// own `ft_balance_of`; and nothing is undecoded. (test/harness/judge.ts judges the whole indexer.)
import { describe, expect, it } from 'vitest';
import { decodeAmmA } from '../../dexes/amm-a/decode.ts';
import type { AmmAEvent } from '../../dexes/amm-a/events.ts';
import { normalizeStreamerMessage } from '../../near/block.ts';
import { decodeBlock } from '../../near/decode.ts';
import type { CoreEvent } from '../../near/events.ts';
import type { RawJson } from '../../near/lake-json.ts';
import { MARKET_TOKENS, RealnetMarket, REF, TRADERS, WRAP, type PoolView, type RealnetMarketOptions } from '../../devnet/realnet/market.ts';
import { marketWasm, REF_RELEASES, refHasSwapByOutput, type RefRelease } from '../../devnet/realnet/wasm.ts';

/** The market run for `blocks` blocks and on until every receipt has run, with every pool's get_pool after each block. */
function refMarket(release: RefRelease, blocks: number, options: RealnetMarketOptions = {}) {
  const market = new RealnetMarket(marketWasm(release), { seed: 'realnet-market', byOutput: refHasSwapByOutput(release), ...options });
  const raw: RawJson[] = [];
  const poolViews = new Map<number, PoolView[]>();
  while (raw.length < blocks || market.chain.pendingReceipts() > 0) {
    const height = market.chain.height;
    raw.push(market.next());
    poolViews.set(height, market.chain.hasContract(REF) && raw.length > 1 ? market.pools() : []);
  }
  return { chain: market.chain, swaps: market.swaps, blocks: raw, poolViews };
}

describe.each(REF_RELEASES)('realnet market: Ref %s, 120 seeded blocks', (release) => {
  const m = refMarket(release, 120);
  const blocks = m.blocks.map((raw) => normalizeStreamerMessage(raw));
  const amm = blocks.flatMap((b) => decodeAmmA(b, { contractId: REF }));
  const core = blocks.flatMap((b) => decodeBlock(b));

  it('the only failures are the swaps meant to be refused (E68)', () => {
    expect(m.swaps.length).toBeGreaterThan(30);
    const failed = m.chain.executed.filter((r) => 'Failure' in r.status);
    expect(failed.every((r) => /E68: slippage error/.test(JSON.stringify(r.status)))).toBe(true);
    expect(new Set(failed.map((r) => r.receipt.txHash))).toEqual(new Set(m.swaps.filter((s) => s.refused).map((s) => s.txHash)));
    expect(m.chain.pendingReceipts()).toBe(0);
  });

  it('after every block, each pool state decoded equals get_pool', () => {
    let checked = 0;
    for (const b of blocks) {
      const views = m.poolViews.get(b.height)!;
      for (const e of decodeAmmA(b, { contractId: REF })) {
        if (e.kind !== 'pool_state') continue;
        const v = views[e.poolId]!;
        expect([e.state.tokens, e.state.amounts.map(String), e.state.totalFee, String(e.state.sharesTotalSupply)], `${b.height} pool ${e.poolId}`).toEqual([
          v.token_account_ids,
          v.amounts,
          v.total_fee,
          v.shares_total_supply,
        ]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(40);
  });

  it('every swap decoded is the path its trader asked for, with the amounts the contract paid; refused ones come back', () => {
    const swapsByReceipt = new Map<string, Extract<AmmAEvent, { kind: 'swap' }>[]>();
    for (const e of amm) if (e.kind === 'swap') swapsByReceipt.set(e.receiptId, [...(swapsByReceipt.get(e.receiptId) ?? []), e]);
    let hops = 0;
    let byOutput = 0;
    for (const s of m.swaps) {
      const rs = m.chain.executed.filter((r) => r.receipt.txHash === s.txHash);
      const onTransfer = rs.find((r) => r.receipt.receiverId === REF && r.receipt.actions[0]?.kind === 'FunctionCall' && r.receipt.actions[0].method === 'ft_on_transfer')!;
      const decoded = swapsByReceipt.get(onTransfer.receipt.id) ?? [];
      if (s.refused) {
        expect(decoded).toEqual([]);
        const back = core.filter((e): e is Extract<CoreEvent, { kind: 'ft_transfer' }> => e.kind === 'ft_transfer' && e.txHash === s.txHash && e.from === REF);
        expect(back.map((e) => [e.contractId, e.to, e.amount])).toEqual([[s.path[0]!.tokenIn, s.trader, s.amountIn]]);
        continue;
      }
      expect(decoded.map((e) => [e.poolId, e.trader, e.tokenIn, e.tokenOut])).toEqual(s.path.map((h) => [h.poolId, s.trader, h.tokenIn, h.tokenOut]));
      if (s.amountOut !== undefined) {
        // By output: exactly the amount asked, and what it did not take of the input comes back to bob.
        expect(decoded[0]!.amountOut).toBe(s.amountOut);
        expect(decoded[0]!.amountIn).toBeLessThan(s.amountIn);
        const moved = core.filter((e): e is Extract<CoreEvent, { kind: 'ft_transfer' }> => e.kind === 'ft_transfer' && e.txHash === s.txHash && e.from === REF && e.to === s.trader);
        expect(moved.map((e) => [e.contractId, e.amount]).sort()).toEqual(
          [
            [s.path[0]!.tokenIn, s.amountIn - decoded[0]!.amountIn],
            [s.path[0]!.tokenOut, s.amountOut],
          ].sort(),
        );
        byOutput++;
        hops++;
        continue;
      }
      expect(decoded[0]!.amountIn).toBe(s.amountIn);
      for (let i = 1; i < decoded.length; i++) expect(decoded[i]!.amountIn).toBe(decoded[i - 1]!.amountOut);
      const paid = core.filter((e): e is Extract<CoreEvent, { kind: 'ft_transfer' }> => e.kind === 'ft_transfer' && e.txHash === s.txHash && e.from === REF && e.to === s.trader);
      expect(paid.map((e) => [e.contractId, e.amount])).toEqual([[s.path.at(-1)!.tokenOut, decoded.at(-1)!.amountOut]]);
      hops += decoded.length;
    }
    expect(hops).toBeGreaterThan(40);
    expect(byOutput > 3).toBe(refHasSwapByOutput(release));
  });

  it("the traders' balances summed from the decoded transfers, mints and burns equal the tokens' ft_balance_of; nothing undecoded", () => {
    for (const token of [WRAP, ...MARKET_TOKENS.map((t) => t.id)]) {
      for (const trader of TRADERS) {
        let sum = 0n;
        for (const e of core) {
          if (e.kind === 'ft_transfer' && e.contractId === token) sum += (e.to === trader ? e.amount : 0n) - (e.from === trader ? e.amount : 0n);
          if (e.kind === 'ft_mint' && e.contractId === token && e.owner === trader) sum += e.amount;
          if (e.kind === 'ft_burn' && e.contractId === token && e.owner === trader) sum -= e.amount;
        }
        expect(String(sum), `${token} ${trader}`).toBe(m.chain.view<string>(token, 'ft_balance_of', { account_id: trader }));
      }
    }
    expect(amm.filter((e) => e.kind === 'undecoded')).toEqual([]);
    expect(core.filter((e) => e.kind === 'undecoded')).toEqual([]);
  });
});

describe("realnet market with nearcore's receipt timing (Ref 1.9.17, 60 blocks)", () => {
  const m = refMarket('1.9.17', 60, { txReceipts: 'nearcore' });
  const blocks = m.blocks.map((raw) => normalizeStreamerMessage(raw));

  it('every swap transaction: ft_transfer_call one block after it, ft_on_transfer two; pools decode to get_pool; nothing undecoded', () => {
    for (const s of m.swaps) {
      const rs = m.chain.executed.filter((r) => r.receipt.txHash === s.txHash);
      expect(rs.slice(0, 2).map((r) => r.height - s.height)).toEqual([1, 2]);
    }
    let checked = 0;
    for (const b of blocks) {
      const views = m.poolViews.get(b.height)!;
      for (const e of decodeAmmA(b, { contractId: REF })) {
        expect(e.kind).not.toBe('undecoded');
        if (e.kind !== 'pool_state') continue;
        expect(e.state.amounts.map(String)).toEqual(views[e.poolId]!.amounts);
        checked++;
      }
      expect(decodeBlock(b).filter((e) => e.kind === 'undecoded')).toEqual([]);
    }
    expect(checked).toBeGreaterThan(15);
  });
});
