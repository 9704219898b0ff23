// What the devnet's StakeB (stake-b.ts, LiNEAR) and StakeD (stake-d.ts, rNEAR, a LiNEAR derivative) models share:
// the contract is the token, `deposit_and_stake {}` with NEAR attached mints it, and both log as LiNEAR does
// (dexes/stake-b/README.md and dexes/stake-d/README.md, "Exact formats"): a `deposit` event, a `stake` event and
// NEP-141 `ft_mint` (memo "stake") in the order each build writes them, then
// `Contract total staked balance is <N>. Total number of shares <S>`. Each model's file gives its standard, event
// order, key order, math and storage; the math is the model's own `internal_stake` (stake-math.ts, written from each
// contract's source; nothing of dexes/stake*/ is imported).
// Rewards: the operator's `epoch_update_rewards {validator_id}` raises N and logs the `epoch_update_rewards` event
// (one receipt here, instead of the validator call and its callback). Its view `get_summary` gives the totals now
// (what `dexlake bootstrap` reads).
// Simplifications: no unstaking (delayed on both: no trade), no reward fees for beneficiaries; `STATE` holds only
// the leading fields the decoder reads; the tokens are deployed with near-contract-standards' `new {owner_id,
// total_supply, metadata}`, its 10 NEAR seed (LiNEAR's init stakes 10 NEAR of its own) minted to the contract.
import { BorshWriter } from '../near/borsh.ts';
import { NEAR_TOKEN_ID } from '../near/token-id.ts';
import { Panic, type Handler, type Receipt } from './chain.ts';
import type { RpcViewAnswer } from './rpc.ts';
import { EpochClock, NEAR, STAKED_TOKEN_METADATA, STATE_KEY, TGAS, epochReward } from './stake.ts';
import type { StakeOutcome, StakeTotals } from './stake-math.ts';
import { recordTrade, type DevnetDex, type World } from './world.ts';

/** The NEAR (and shares) the contract stakes for itself at init. */
export const LINEAR_INIT_SEED = 10n * NEAR;
const GENESIS_STAKE = 100_000n * NEAR;
/** The validator the staked NEAR sits with: the devnet's only block producer (chain.ts's block author). */
const DEVNET_VALIDATOR = 'devnet.poolv1.near';

export interface LinearStyleOptions {
  id: 'StakeB' | 'StakeD';
  /** The NEP-297 standard and version of its events (LiNEAR `linear` 1.0.1, rNEAR `rhea_lst` 1.0.0). */
  standard: string;
  version: string;
  /** rNEAR's events come with their keys sorted (serde_json's map), LiNEAR's in the declared order. */
  sortedKeys: boolean;
  /** The contract's `internal_stake` (the model's own, stake-math.ts, from the contract's source). */
  stakeMath: (totals: StakeTotals, deposit: bigint) => StakeOutcome;
  /** LiNEAR logs the `stake` event before the mint, rNEAR after it. */
  stakeEventFirst: boolean;
  /** Writes `STATE` on every change (LiNEAR; rNEAR's layout is not known). */
  writesState: boolean;
  /** Rewards accrued "before" the devnet began, in percent of the genesis stake. */
  genesisRewardPercent: bigint;
}

export abstract class LinearStyleDevnet implements DevnetDex {
  abstract readonly id: 'StakeB' | 'StakeD';
  /** [total NEAR staked, total shares]. */
  private totals: [bigint, bigint] = [0n, 0n];
  /** The totals of the last totals line (what rNEAR's pools row holds). */
  private logged: [bigint, bigint] | null = null;
  private readonly unstaked = new Map<string, bigint>();
  private readonly epochs = new EpochClock();
  private contractId = '';
  private owner = '';

  constructor(private readonly options: LinearStyleOptions) {}

  protected abstract contractOf(world: World): string;

  genesis(world: World): void {
    const { tokens, treasury } = world;
    this.contractId = this.contractOf(world);
    this.owner = treasury;
    tokens.deploy({ contractId: this.contractId, ...STAKED_TOKEN_METADATA[this.options.id] }, this.contractId, LINEAR_INIT_SEED);
    this.totals = [LINEAR_INIT_SEED, LINEAR_INIT_SEED];
    this.stake(world, treasury, GENESIS_STAKE);
    this.updateRewards(world, (this.totals[0] * this.options.genesisRewardPercent) / 100n);
  }

  act(world: World, trader: string): void {
    const { rng } = world;
    if (this.epochs.due(world)) {
      this.updateRewards(world, epochReward(world, this.totals[0]));
      return;
    }
    // One stake in twenty is of 1 yocto: no share is minted and the contract panics after the deposit event.
    this.stake(world, trader, rng.chance(0.05) ? 1n : rng.bigint(NEAR / 10n, 300n * NEAR));
  }

  reserves(): Map<string, bigint[]> {
    const amounts = this.options.writesState ? this.totals : this.logged;
    return amounts === null || this.contractId === '' ? new Map() : new Map([[this.contractId, [...amounts]]]);
  }

  /**
   * `get_summary {}` in the `Summary` shape both contracts' sources give (dexes/stake-b/README.md "Bootstrap"): the
   * two totals and `ft_price` = floor(N·10^24 / S) as U128 strings; the model settles no epochs, so its settlement
   * figures are 0, and its one validator is `validators_num`.
   */
  view(_world: World, contractId: string, method: string): RpcViewAnswer | undefined {
    if (contractId !== this.contractId || method !== 'get_summary') return undefined;
    const [staked, shares] = this.totals;
    return {
      value: {
        total_share_amount: shares.toString(),
        total_staked_near_amount: staked.toString(),
        ft_price: ((staked * NEAR) / shares).toString(),
        validators_num: 1,
        stake_amount_to_settle: '0',
        unstake_amount_to_settle: '0',
        validators_total_base_stake_amount: '0',
        epoch_requested_stake_amount: '0',
        epoch_requested_unstake_amount: '0',
      },
    };
  }

  /** The rate now: amounts [N, S]. */
  rate(): { amounts: [bigint, bigint] } {
    return { amounts: [this.totals[0], this.totals[1]] };
  }

  /** `deposit_and_stake {}` with `deposit` attached, signed by `account`. */
  stake(world: World, account: string, deposit: bigint): Receipt {
    const call = { method: 'deposit_and_stake', args: {}, deposit, gas: 50n * TGAS };
    return world.chain.transact(account, this.contractId, [call], this.staking(world, account, deposit));
  }

  /** A user's `deposit_and_stake` (a route's stake). */
  entry(world: World, contractId: string, method: string, _args: Record<string, unknown>, predecessorId: string, deposit: bigint): Handler | undefined {
    return contractId === this.contractId && method === 'deposit_and_stake' ? this.staking(world, predecessorId, deposit) : undefined;
  }

  /** `deposit_and_stake` of `deposit` by `account`, inside the contract's receipt. */
  private staking(world: World, account: string, deposit: bigint): Handler {
    const { id, stakeMath, stakeEventFirst } = this.options;
    const contractId = this.contractId;
    return (r) => {
      this.snapshot(r);
      const before = this.unstaked.get(account) ?? 0n;
      const afterDeposit = before + deposit;
      this.unstaked.set(account, afterDeposit);
      this.event(r, 'deposit', [{ account_id: account, amount: deposit.toString(), new_unstaked_balance: afterDeposit.toString() }]);
      const { minted, charged, after } = stakeMath(this.totals, deposit);
      if (minted === 0n) throw new Panic('The calculated number of "stake" shares received for staking should be positive');
      const unstaked = afterDeposit - charged;
      this.unstaked.set(account, unstaked);
      this.totals = after;
      const stakeEvent = {
        account_id: account,
        staked_amount: charged.toString(),
        minted_stake_shares: minted.toString(),
        new_unstaked_balance: unstaked.toString(),
        new_stake_shares: (world.tokens.balance(contractId, account) + minted).toString(),
      };
      if (stakeEventFirst) this.event(r, 'stake', [stakeEvent]);
      world.tokens.mint(r, account, minted, 'stake');
      if (!stakeEventFirst) this.event(r, 'stake', [stakeEvent]);
      r.log(`Contract total staked balance is ${this.totals[0]}. Total number of shares ${this.totals[1]}`);
      this.logged = [...this.totals];
      this.writeState(r);
      recordTrade(world, r, { dex: id, poolId: contractId, trader: account, tokenIn: NEAR_TOKEN_ID, tokenOut: contractId, amountIn: charged, amountOut: minted });
      return minted.toString();
    };
  }

  /** The operator's `epoch_update_rewards`: the validator's balance grew by `rewards`, and so does N. */
  private updateRewards(world: World, rewards: bigint): void {
    const validator = DEVNET_VALIDATOR;
    const call = { method: 'epoch_update_rewards', args: { validator_id: validator }, gas: 50n * TGAS };
    world.chain.transact(`operator.${this.contractId}`, this.contractId, [call], (r) => {
      this.snapshot(r);
      const oldBalance = this.totals[0];
      this.totals = [oldBalance + rewards, this.totals[1]];
      this.event(r, 'epoch_update_rewards', [
        { validator_id: validator, old_balance: oldBalance.toString(), new_balance: this.totals[0].toString(), rewards: rewards.toString() },
      ]);
      this.writeState(r);
    });
  }

  /** An event of the contract's own standard, keys in the order its build writes them. */
  private event(r: Receipt, name: string, data: unknown[]): void {
    const { standard, version, sortedKeys } = this.options;
    if (!sortedKeys) r.event(standard, version, name, data);
    else r.log(`EVENT_JSON:${JSON.stringify(withSortedKeys({ standard, version, event: name, data }))}`);
  }

  private snapshot(r: Receipt): void {
    const totals = this.totals;
    const logged = this.logged;
    const unstaked = new Map(this.unstaked);
    r.onRevert(() => {
      this.totals = totals;
      this.logged = logged;
      this.unstaked.clear();
      for (const [a, v] of unstaked) this.unstaked.set(a, v);
    });
  }

  /** LiNEAR's `STATE` leading fields (dexes/stake-b/state.ts reads them); nothing for rNEAR. */
  private writeState(r: Receipt): void {
    if (!this.options.writesState) return;
    const w = new BorshWriter()
      .string(this.owner)
      // managers: UnorderedSet { element_index: LookupMap { prefix }, elements: Vector { len, prefix } }
      .bytesVec(Buffer.from('mi'))
      .u64(1n)
      .bytesVec(Buffer.from('me'))
      .string(`treasury.${this.contractId}`)
      .u128(this.totals[1])
      .u128(this.totals[0]);
    r.write(STATE_KEY, w.bytes());
  }
}

/** A JSON value with every object's keys in sorted order, as serde_json's default map writes them. */
function withSortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withSortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, withSortedKeys(v)]));
}
