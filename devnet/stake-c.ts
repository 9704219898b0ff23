// StakeC (xRHEA) on the devnet: RHEA (`contracts.StakeCUnderlying` = token.rhealab.near) staked into
// `contracts.StakeC` (xtoken.rhealab.near, also the xRHEA token), modelled on Ref's xREF contract, which xRHEA
// descends from (ref-finance/ref-token xref-token/src/xref.rs; dexes/stake-c/README.md). xRHEA's source is not
// public: the model's arithmetic is xREF's, written from xREF's source in stake-math.ts (`xrefInternalStake`,
// `xrefTryDistributeReward`, `xrefVirtualPrice`, each citing its file and function; nothing of dexes/stake*/ is
// imported), and that xRHEA keeps it rests on the public evidence dexes/stake-c/README.md grades:
// - stake: `ft_transfer_call` of RHEA to the xtoken contract with msg `{"Stake":{}}` (the aggregator's message);
//   its `ft_on_transfer` first streams the pending reward into the locked amount, then mints
//   floor(amount·supply/locked) xRHEA (`ERR_STAKE_TOO_SMALL` when that is 0; `Account not registered.` when the
//   staker has no xRHEA storage) with a NEP-141 `ft_mint` event, the record dexes/stake-c/decode.ts reads;
// - reward: any other msg adds the amount to the undistributed reward (xREF's `Add reward ..` and `.. add ..
//   assets as reward` lines), streamed into the locked amount at `reward_per_sec` from then on, so the rate drifts up
//   with time (no reward genesis time: xREF's `reward_genesis_time_in_sec` is 0 here).
// The rate is in no log and in no known storage layout: the decoder takes the last stake of a block as the rate, so
// reserves() is that stake's [RHEA in, xRHEA minted]. Views (`dexlake bootstrap`): `contract_metadata`,
// `ft_total_supply`, `get_virtual_price`, as xREF computes them. Not known (xRHEA's source is not public): its
// reward msg (written `{"Reward":{}}` here) and whether it adds the xREF stake line (not written: the README asks
// for the `ft_mint` event). Unstaking is not modelled (its exit
// fee rule is not public). The xRHEA supply starts at 1 xRHEA minted to the contract, backed by 1 RHEA the treasury
// sends it (xREF divides by the supply, so it cannot start empty).
import { Panic, type Handler, type Receipt } from './chain.ts';
import type { RpcViewAnswer } from './rpc.ts';
import { RHEA_METADATA, STAKED_TOKEN_METADATA, TGAS } from './stake.ts';
import { xrefInternalStake, xrefTryDistributeReward, xrefVirtualPrice } from './stake-math.ts';
import { recordTrade, type DevnetDex, type World } from './world.ts';

const RHEA = 10n ** 18n;
const SEED = RHEA;
const RHEA_SUPPLY = 1_000_000_000n * RHEA;
const GENESIS_STAKE = 100_000n * RHEA;
const GENESIS_REWARD_FUND = 1_000_000n * RHEA;
/** Streamed into the locked amount every second while the fund lasts. */
export const XRHEA_REWARD_PER_SEC = RHEA;
const STAKE_MSG = JSON.stringify({ Stake: {} });
const REWARD_MSG = JSON.stringify({ Reward: {} });

export class StakeCDevnet implements DevnetDex {
  readonly id = 'StakeC' as const;
  /** locked RHEA (L), xRHEA supply (X). */
  private locked = 0n;
  private supply = 0n;
  private xRheaId = '';
  private undistributed = 0n;
  private rewardPerSec = 0n;
  private prevDistributionSec = 0n;

  genesis(world: World): void {
    const { tokens, contracts, treasury, wallets, rng, chain } = world;
    const rhea = contracts.StakeCUnderlying;
    const xRhea = contracts.StakeC;
    tokens.deploy({ contractId: rhea, ...RHEA_METADATA }, treasury, RHEA_SUPPLY);
    tokens.deploy({ contractId: xRhea, ...STAKED_TOKEN_METADATA.StakeC }, xRhea, SEED);
    this.prevDistributionSec = nowSec(world);
    tokens.register(treasury, rhea, xRhea);
    tokens.send(treasury, rhea, xRhea, SEED);
    [this.locked, this.supply] = [SEED, SEED];
    const rewardCall = { method: 'modify_reward_per_sec', args: { reward_per_sec: XRHEA_REWARD_PER_SEC.toString(), distribute_before_change: true }, deposit: 1n };
    chain.transact(treasury, xRhea, [rewardCall], (r) => {
      this.snapshot(r);
      this.distributeReward(world);
      this.rewardPerSec = XRHEA_REWARD_PER_SEC;
    });
    tokens.register(treasury, xRhea);
    this.stake(world, treasury, GENESIS_STAKE);
    this.depositReward(world, treasury, GENESIS_REWARD_FUND);
    for (const wallet of wallets) {
      tokens.register(wallet, rhea);
      tokens.send(treasury, rhea, wallet, rng.bigint(1_000n, 50_000n) * RHEA);
    }
  }

  act(world: World, trader: string): void {
    const { rng, tokens, contracts } = world;
    const balance = tokens.balance(contracts.StakeCUnderlying, trader);
    if (balance < RHEA) return;
    // As an aggregator's route does, the staker registers with xRHEA first when needed.
    if (!tokens.isRegistered(contracts.StakeC, trader)) tokens.register(trader, contracts.StakeC);
    // One stake in twenty is of 1 unit: it mints nothing, ERR_STAKE_TOO_SMALL, and the RHEA is refunded.
    this.stake(world, trader, rng.chance(0.05) ? 1n : rng.bigint(RHEA, balance / 10n > RHEA ? balance / 10n : RHEA));
  }

  private lastStake: bigint[] | undefined;

  /**
   * The views `dexlake bootstrap` reads (dexes/stake-c/README.md "Bootstrap"), at the last sealed block's time, with
   * xREF's formulas (xRHEA's source is not public): `contract_metadata` with the fields a RHEA adapter reads from
   * xRHEA (the `cur_` ones with the reward due now), `ft_total_supply`, `get_virtual_price` = (locked + reward
   * due)·10^8 / supply (10^8 without supply).
   */
  view(world: World, contractId: string, method: string): RpcViewAnswer | undefined {
    if (contractId !== world.contracts.StakeC) return undefined;
    const due = this.rewardDue(BigInt(Math.floor((world.chain.timestampMs - world.chain.blockMs) / 1000)));
    if (method === 'ft_total_supply') return { value: this.supply.toString() };
    if (method === 'get_virtual_price') return { value: xrefVirtualPrice(this.locked + due, this.supply).toString() };
    if (method !== 'contract_metadata') return undefined;
    return {
      value: {
        locked_token_id: world.contracts.StakeCUnderlying,
        locked_token_amount: this.locked.toString(),
        cur_locked_token_amount: (this.locked + due).toString(),
        reward_per_sec: this.rewardPerSec.toString(),
        undistributed_reward_amount: this.undistributed.toString(),
        cur_undistributed_reward_amount: (this.undistributed - due).toString(),
      },
    };
  }

  reserves(): Map<string, bigint[]> {
    return this.lastStake === undefined ? new Map() : new Map([[this.xRheaId, [...this.lastStake]]]);
  }

  /** `ft_transfer_call` of `amount` RHEA to the xtoken contract with the stake msg, signed by `account`. */
  stake(world: World, account: string, amount: bigint): void {
    world.tokens.transferCall(account, world.contracts.StakeCUnderlying, world.contracts.StakeC, amount, STAKE_MSG, (r) => this.onStake(world, r, account, amount), 100n * TGAS);
  }

  /** A user's stake by method (a route's `ft_transfer_call` of RHEA with the stake msg reaching `ft_on_transfer`). */
  entry(world: World, contractId: string, method: string, args: Record<string, unknown>, predecessorId: string): Handler | undefined {
    const { contracts } = world;
    if (contractId !== contracts.StakeC || method !== 'ft_on_transfer' || predecessorId !== contracts.StakeCUnderlying || args.msg !== STAKE_MSG) return undefined;
    if (typeof args.sender_id !== 'string' || typeof args.amount !== 'string') return undefined;
    const [account, amount] = [args.sender_id, BigInt(args.amount)];
    return (r) => this.onStake(world, r, account, amount);
  }

  /** xREF's `ft_on_transfer` stake: the reward due first, then floor(amount·supply/locked) xRHEA minted. */
  private onStake(world: World, r: Receipt, account: string, amount: bigint): bigint {
    const { tokens, contracts } = world;
    const xRhea = contracts.StakeC;
    this.snapshot(r);
    this.distributeReward(world);
    if (!tokens.isRegistered(xRhea, account)) throw new Panic('Account not registered.');
    const { minted, after } = xrefInternalStake([this.locked, this.supply], amount);
    if (minted === 0n) throw new Panic('ERR_STAKE_TOO_SMALL');
    [this.locked, this.supply] = after;
    tokens.mint(r, account, minted);
    const previous = this.lastStake;
    this.lastStake = [amount, minted];
    this.xRheaId = xRhea;
    r.onRevert(() => (this.lastStake = previous));
    recordTrade(world, r, { dex: 'StakeC', poolId: xRhea, trader: account, tokenIn: contracts.StakeCUnderlying, tokenOut: xRhea, amountIn: amount, amountOut: minted });
    return 0n;
  }

  /** A reward deposit: RHEA to stream into the locked amount. */
  private depositReward(world: World, account: string, amount: bigint): void {
    world.tokens.transferCall(account, world.contracts.StakeCUnderlying, world.contracts.StakeC, amount, REWARD_MSG, (r) => {
      this.snapshot(r);
      this.distributeReward(world);
      r.log(`Add reward ${amount} token with msg ${REWARD_MSG}`);
      this.undistributed += amount;
      r.log(`${account} add ${amount} assets as reward`);
      return 0n;
    }, 100n * TGAS);
  }

  /** xREF `distribute_reward`: the reward due moves into the locked amount. */
  private distributeReward(world: World): void {
    const now = nowSec(world);
    const reward = this.rewardDue(now);
    this.undistributed -= reward;
    this.locked += reward;
    this.prevDistributionSec = now;
  }

  /** xREF `try_distribute_reward` at `now` (s), stake-math.ts. */
  private rewardDue(now: bigint): bigint {
    const { rewardPerSec, undistributed, prevDistributionSec } = this;
    return xrefTryDistributeReward({ rewardPerSec, undistributed, prevDistributionSec, rewardGenesisSec: 0n }, now);
  }

  private snapshot(r: Receipt): void {
    const saved = [this.locked, this.supply, this.undistributed, this.rewardPerSec, this.prevDistributionSec] as const;
    r.onRevert(() => ([this.locked, this.supply, this.undistributed, this.rewardPerSec, this.prevDistributionSec] = saved));
  }
}

function nowSec(world: World): bigint {
  return BigInt(Math.floor(world.chain.timestampMs / 1000));
}
