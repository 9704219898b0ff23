// Ref's stable pool run by each vendored release (devnet/realnet/scenario.ts refStableScenario): the pool state
// decodeAmmA reads from the contract's own borsh write equals `get_stable_pool` after every block; the stable
// swap and the three liquidity lines (`Mint …`, `LP … remove … shares to gain tokens …`, `LP … removed … shares by
// given tokens …`) decode to what the contract did; nothing is undecoded.
import { describe, expect, it } from 'vitest';
import { decodeAmmA } from '../../dexes/amm-a/decode.ts';
import type { AmmAEvent } from '../../dexes/amm-a/events.ts';
import { normalizeStreamerMessage } from '../../near/block.ts';
import { decodeBlock } from '../../near/decode.ts';
import { ALICE, BOB, REF, refStableScenario, TOKEN_A, TOKEN_B } from '../../devnet/realnet/scenario.ts';
import { REF_RELEASES, refWasm, vendoredWasm } from '../../devnet/realnet/wasm.ts';

describe.each(REF_RELEASES)('realnet stable pool: Ref %s', (release) => {
  const s = refStableScenario({ ref: refWasm(release), ftSdk3: vendoredWasm('fungible_token_sdk3.1'), ftSdk4: vendoredWasm('fungible_token_sdk4.1') });
  const blocks = s.blocks.map((m) => normalizeStreamerMessage(m));
  const events = blocks.flatMap((b) => decodeAmmA(b, { contractId: REF }));
  const receipts = (txHash: string) => s.chain.executed.filter((r) => r.receipt.txHash === txHash);

  it('every transaction succeeds', () => {
    expect(s.chain.executed.filter((r) => 'Failure' in r.status).map((r) => JSON.stringify(r.status))).toEqual([]);
  });

  it('after every block, the decoded stable pool equals get_stable_pool', () => {
    let checked = 0;
    for (const b of blocks) {
      for (const e of decodeAmmA(b, { contractId: REF })) {
        if (e.kind !== 'pool_state') continue;
        const v = s.stableViews.get(b.height)!;
        expect(e.state.kind).toBe('stable');
        if (e.state.kind !== 'stable') continue;
        expect([e.state.tokens, e.state.decimals, e.state.amounts.map(String), e.state.cAmounts.map(String), e.state.totalFee, String(e.state.sharesTotalSupply), Number(e.state.targetAmpFactor)]).toEqual([
          v.token_account_ids,
          v.decimals,
          v.amounts,
          v.c_amounts,
          v.total_fee,
          v.shares_total_supply,
          v.amp,
        ]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(4);
  });

  it('the swap is what the contract paid; the liquidity lines are what it took and gave', () => {
    const swaps = events.filter((e): e is Extract<AmmAEvent, { kind: 'swap' }> => e.kind === 'swap');
    const payout = receipts(s.steps.swap.txHash).find((r) => r.receipt.actions[0]?.kind === 'FunctionCall' && r.receipt.actions[0].method === 'ft_transfer')!;
    const a = payout.receipt.actions[0]!;
    const paid = JSON.parse(new TextDecoder().decode(a.kind === 'FunctionCall' ? a.args : new Uint8Array())) as { receiver_id: string; amount: string };
    expect(swaps.map((e) => [e.poolId, e.trader, e.tokenIn, e.tokenOut, e.amountIn, e.amountOut])).toEqual([[0, BOB, TOKEN_A, TOKEN_B, 3n * 10n ** 24n, BigInt(paid.amount)]]);
    expect(paid.receiver_id).toBe(BOB);
    expect(swaps[0]!.totalFee).not.toBeNull();

    const liquidity = events.filter((e): e is Extract<AmmAEvent, { kind: 'liquidity' }> => e.kind === 'liquidity');
    expect(liquidity.map((e) => [e.poolId, e.provider, e.action, e.tokens])).toEqual([
      [0, ALICE, 'add', [TOKEN_A, TOKEN_B]],
      [0, ALICE, 'remove', [TOKEN_A, TOKEN_B]],
      [0, ALICE, 'remove', [TOKEN_A, TOKEN_B]],
    ]);
    expect(liquidity[0]!.amounts).toEqual([100n * 10n ** 24n, 120n * 10n ** 24n]);
    const [removed] = receipts(s.steps.removeLiquidity.txHash);
    const gained = JSON.parse(Buffer.from((removed!.status as { SuccessValue: string }).SuccessValue, 'base64').toString()) as string[];
    expect(liquidity[1]!.amounts.map(String)).toEqual(gained);
    expect(liquidity[1]!.shares).toBe(10n * 10n ** 18n);
    expect(liquidity[2]!.amounts).toEqual([5n * 10n ** 24n, 1n * 10n ** 24n]);
    const [byTokens] = receipts(s.steps.removeByTokens.txHash);
    expect(String(liquidity[2]!.shares)).toBe(JSON.parse(Buffer.from((byTokens!.status as { SuccessValue: string }).SuccessValue, 'base64').toString()));
  });

  it('nothing is undecoded', () => {
    expect(events.filter((e) => e.kind === 'undecoded')).toEqual([]);
    expect(blocks.flatMap((b) => decodeBlock(b)).filter((e) => e.kind === 'undecoded')).toEqual([]);
  });
});
