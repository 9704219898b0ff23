// A seeded market of 120 blocks on the real contracts, for every vendored Ref release: after every block, each pool
// state decodeAmmA reads equals the contract's own `get_pool`; every swap it reads is hop for hop what bob asked and
// what the contract paid; every refused swap's tokens come back; bob's balances summed from the decoded transfers
// equal the tokens' own `ft_balance_of`; and nothing is undecoded.
import { describe, expect, it } from 'vitest';
import { decodeAmmA } from '../../dexes/amm-a/decode.ts';
import type { AmmAEvent } from '../../dexes/amm-a/events.ts';
import { normalizeStreamerMessage } from '../../near/block.ts';
import { decodeBlock } from '../../near/decode.ts';
import type { CoreEvent } from '../../near/events.ts';
import { BOB, REF, refMarket, TOKEN_A, TOKEN_B, WRAP } from '../../devnet/realnet/scenario.ts';
import { REF_RELEASES, refWasm, vendoredWasm } from '../../devnet/realnet/wasm.ts';

// Swaps by output (`amount_out` in the instant swap's actions) from 1.9.4, the first release with `swap_by_output`.
const BY_OUTPUT: ReadonlySet<string> = new Set(['1.9.4', '1.9.16', '1.9.17']);

describe.each(REF_RELEASES)('realnet market: Ref %s, 120 seeded blocks', (release) => {
  const m = refMarket(
    { ref: refWasm(release), wNear: vendoredWasm('w_near'), ftSdk3: vendoredWasm('fungible_token_sdk3.1'), ftSdk4: vendoredWasm('fungible_token_sdk4.1') },
    { blocks: 120, byOutput: BY_OUTPUT.has(release) },
  );
  const blocks = m.blocks.map((raw) => normalizeStreamerMessage(raw));
  const amm = blocks.flatMap((b) => decodeAmmA(b, { contractId: REF }));
  const core = blocks.flatMap((b) => decodeBlock(b));

  it('the only failures are the swaps meant to be refused (E68)', () => {
    expect(m.swaps.length).toBeGreaterThan(80);
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
    expect(checked).toBeGreaterThan(80);
  });

  it('every swap decoded is the path bob asked for, with the amounts the contract paid; refused ones come back', () => {
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
        expect(back.map((e) => [e.contractId, e.to, e.amount])).toEqual([[s.path[0]!.tokenIn, BOB, s.amountIn]]);
        continue;
      }
      expect(decoded.map((e) => [e.poolId, e.trader, e.tokenIn, e.tokenOut])).toEqual(s.path.map((h) => [h.poolId, BOB, h.tokenIn, h.tokenOut]));
      if (s.amountOut !== undefined) {
        // By output: exactly the amount asked, and what it did not take of the input comes back to bob.
        expect(decoded[0]!.amountOut).toBe(s.amountOut);
        expect(decoded[0]!.amountIn).toBeLessThan(s.amountIn);
        const moved = core.filter((e): e is Extract<CoreEvent, { kind: 'ft_transfer' }> => e.kind === 'ft_transfer' && e.txHash === s.txHash && e.from === REF && e.to === BOB);
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
      const paid = core.filter((e): e is Extract<CoreEvent, { kind: 'ft_transfer' }> => e.kind === 'ft_transfer' && e.txHash === s.txHash && e.from === REF && e.to === BOB);
      expect(paid.map((e) => [e.contractId, e.amount])).toEqual([[s.path.at(-1)!.tokenOut, decoded.at(-1)!.amountOut]]);
      hops += decoded.length;
    }
    expect(hops).toBeGreaterThan(80);
    expect(byOutput > 10).toBe(BY_OUTPUT.has(release));
  });

  it("bob's balances summed from the decoded transfers and mints equal the tokens' ft_balance_of; nothing undecoded", () => {
    for (const token of [WRAP, TOKEN_A, TOKEN_B]) {
      let sum = 0n;
      for (const e of core) {
        if (e.kind === 'ft_transfer' && e.contractId === token) sum += (e.to === BOB ? e.amount : 0n) - (e.from === BOB ? e.amount : 0n);
        if (e.kind === 'ft_mint' && e.contractId === token && e.owner === BOB) sum += e.amount;
        if (e.kind === 'ft_burn' && e.contractId === token && e.owner === BOB) sum -= e.amount;
      }
      expect(String(sum), token).toBe(m.chain.view<string>(token, 'ft_balance_of', { account_id: BOB }));
    }
    expect(amm.filter((e) => e.kind === 'undecoded')).toEqual([]);
    expect(core.filter((e) => e.kind === 'undecoded')).toEqual([]);
  });
});

describe("realnet market with nearcore's receipt timing (Ref 1.9.17, 60 blocks)", () => {
  const m = refMarket(
    { ref: refWasm('1.9.17'), wNear: vendoredWasm('w_near'), ftSdk3: vendoredWasm('fungible_token_sdk3.1'), ftSdk4: vendoredWasm('fungible_token_sdk4.1') },
    { blocks: 60, txReceipts: 'nearcore' },
  );
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
    expect(checked).toBeGreaterThan(30);
  });
});
