// Block -> StakeC events (xRHEA: RHEA `token.rhealab.near` staked into `xtoken.rhealab.near`, which is also the
// xRHEA token). Pure; see README.md, including what is not confirmed about this contract.
// A stake is the xtoken contract's successful `ft_on_transfer` called by the RHEA contract; what it minted is read
// from, in this order:
// - the xREF log `<account> Stake <amount> assets, get <minted> token` (ref-finance/ref-token xref-token, the
//   contract xRHEA descends from), or
// - the NEP-141 `ft_mint` events to the sender in that receipt (amount in = the transferred amount).
// The rate: no log or known storage gives it, so the block's last stake stands for it (`source: 'event'`): RHEA in
// and xRHEA minted as the two sides, which is the contract's floor(amount * supply / locked) at that moment, to
// within one xRHEA unit. Unstakes are not decoded: their logs are not known (see README.md).
// xRHEA's own source is not public: any line of the contract that is not one of xREF's becomes an `undecoded` event,
// so that its real formats show up in `dexlake undecoded --dex StakeC`.
import type { Block } from '../../near/block.ts';
import type { UndecodedEvent } from '../../near/events.ts';
import { isValidAccountId } from '../../near/token-id.ts';
import type { DexContracts } from '../contracts.ts';
import type { DexEvent } from '../events.ts';
import { stakeRateState } from '../stake/rate.ts';
import { KnownLogs, StakeEventSink, accountField, amountField, ftMintsOf, functionCallsOf, successfulOutcomesOf } from '../stake/emit.ts';

const XREF_STAKE_LOG = /^(\S+) Stake (\d+) assets, get (\d+) token$/;
/** The stake line's words, to tell a malformed one (reported) from other text. */
const XREF_STAKE_WORDS = / Stake .* assets, get .* token$/;

/**
 * The lines of xREF (ref-finance/ref-token @ 1f92f64 `xref-token/src/`, the contract xRHEA descends from) other than
 * the stake line, its near-contract-standards 3 token's legacy transfer lines (the core decoder's), and NEP-141
 * events (ditto), the form a newer build would log its mints in.
 */
const XREF_LOGS = new KnownLogs(
  ['nep141'],
  [
    '{} add {} assets as reward',
    'Add reward {} token with msg {}',
    'Withdraw {} NEAR from {}',
    'Account {} unstake failed and reverted.',
    'Account {} has unregisterd. unlocking token goes to contract.',
    'Transfer {} from {} to {}',
    'Refund {} from {} to {}',
    'Memo: {}',
    'The account {} is not registered',
    'The account is already registered, refunding the deposit',
  ],
);

export function decodeStakeC(block: Block, contracts: DexContracts): Array<DexEvent | UndecodedEvent> {
  const xRhea = contracts.StakeC;
  const rhea = contracts.StakeCUnderlying;
  const sink = new StakeEventSink(block, 'StakeC', xRhea);
  let lastStake: { receiptId: string; txHash: string | null; amountIn: bigint; minted: bigint } | undefined;

  for (const outcome of successfulOutcomesOf(block, xRhea)) {
    for (const log of outcome.logs) {
      if (XREF_STAKE_LOG.test(log) || XREF_LOGS.has(log)) continue;
      const reason = XREF_STAKE_WORDS.test(log) ? 'Stake line does not read' : "matches none of xREF's log formats (xRHEA's source is not public)";
      sink.undecodedLog(outcome, log, reason);
    }
    if (outcome.predecessorId !== rhea) continue;
    const args = functionCallsOf(outcome).find((c) => c.method === 'ft_on_transfer')?.args;
    if (args === undefined || args === null) continue;
    const sender = accountField(args, 'sender_id');
    const transferred = amountField(args, 'amount');
    if (sender === null || transferred === null) continue;

    const logged = xrefStakeLine(outcome.logs);
    if (logged !== null) {
      sink.swap(outcome, { trader: logged.trader ?? sender, tokenIn: rhea, tokenOut: xRhea, amountIn: logged.amount, amountOut: logged.minted });
      lastStake = { receiptId: outcome.receiptId, txHash: outcome.txHash, amountIn: logged.amount, minted: logged.minted };
      continue;
    }
    // A reward deposit (xREF: any non-empty msg) mints nothing and is not a trade.
    let minted = 0n;
    for (const m of ftMintsOf(outcome)) if (m.owner === sender) minted += m.amount;
    if (minted > 0n) {
      sink.swap(outcome, { trader: sender, tokenIn: rhea, tokenOut: xRhea, amountIn: transferred, amountOut: minted });
      lastStake = { receiptId: outcome.receiptId, txHash: outcome.txHash, amountIn: transferred, minted };
    }
  }
  if (lastStake !== undefined) {
    const rate = stakeRateState(rhea, xRhea, lastStake.amountIn, lastStake.minted, 'the last stake of the block: RHEA in / xRHEA minted');
    sink.poolState(lastStake.receiptId, lastStake.txHash, rate, 'event');
  }
  return sink.events;
}

function xrefStakeLine(logs: string[]): { trader: string | null; amount: bigint; minted: bigint } | null {
  for (const log of logs) {
    const m = XREF_STAKE_LOG.exec(log);
    if (m === null) continue;
    const trader = m[1] as string;
    return { trader: isValidAccountId(trader) ? trader : null, amount: BigInt(m[2] as string), minted: BigInt(m[3] as string) };
  }
  return null;
}
