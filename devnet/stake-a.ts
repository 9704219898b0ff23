// StakeA (Meta Pool, `contracts.StakeA` = meta-pool.near, which is also the stNEAR token) on the devnet, with the
// log lines of Meta-Pool/liquid-staking-contract v2.0.0 (dexes/stake-a/README.md "Exact formats"):
// - `deposit_and_stake {}` (NEAR attached, at least 1 NEAR): `new account, .. storage_deposit` for an unknown
//   account (0.00125 NEAR kept), `<a> deposited into @<acct>'s account. ..`, `{"event":"STAKE",..}`, the NSLP's
//   internal clearing (`nslp internal clearing ..`, and `NSLP clearing ..` + `NSLP.clr` when the liquidity pool holds
//   stNEAR: the pool sells its stNEAR to the staker at par, burning it), then the NEP-141 `ft_mint`.
// - `liquid_unstake {st_near_to_burn, min_expected_near}`: the stNEAR goes to the NEAR/stNEAR liquidity pool (NSLP)
//   and the fee cuts to the treasury, operator and developers accounts, the NEAR comes back in a Transfer receipt;
//   logs `st_near owned:..`, `get_discount_basis_points ..`, the cuts line, `nslp_account.add_st_near ..`,
//   `@<acct> liquid-unstaked ..` and `{"event":"LIQ.U",..}`. Like mainnet it logs no NEP-141 event: an indexer that
//   sums NEP-141 events cannot follow stNEAR balances across liquid unstakes.
// - every state change writes `STATE`, whose leading fields give the rate [total_for_staking, total_stake_shares];
// - views (`dexlake bootstrap` over the devnet's JSON-RPC): `get_contract_state`, `ft_metadata`.
// The stNEAR ledger is the contract's own accounts map, kept here (not in Tokens: it is not a NEP-141 event ledger,
// see above). Simplifications: `STATE` holds only the fields the decoder reads (down to the NSLP fee curve), with one
// staking pool in its list; no staking-pool calls (total_actually_staked moves with rewards only); rewards are one
// operator receipt (`distribute_rewards`) instead of the pool call and its callback, with no operator fee shares;
// no delayed unstakes.
// The arithmetic is the model's own, written from the contract's source (stake-math.ts, Meta Pool section: shares and
// amounts, is_close, the NSLP discount curve, liquid_unstake's pricing, apply_pct, the storage cost; each function
// names its file and function); nothing of dexes/stake*/ is imported.
import { BorshWriter } from '../near/borsh.ts';
import { NEAR_TOKEN_ID } from '../near/token-id.ts';
import { Panic, type Handler, type Receipt } from './chain.ts';
import type { RpcViewAnswer } from './rpc.ts';
import { EpochClock, NEAR, STAKED_TOKEN_METADATA, STATE_KEY, TGAS, epochReward } from './stake.ts';
import { initMetadata } from './tokens.ts';
import {
  META_POOL_STORAGE_COST_YOCTOS,
  metaPoolAmountFromShares as amountFromShares,
  metaPoolApplyPct,
  metaPoolDiscountBasisPoints,
  metaPoolIsClose as isClose,
  metaPoolLiquidUnstakePrice,
  metaPoolSharesFromAmount as sharesFromAmount,
} from './stake-math.ts';
import { recordTrade, type DevnetDex, type World } from './world.ts';

/** The contract's `min_deposit_amount` (dexes/stake-a/README.md: 1 NEAR by default). */
export const META_POOL_MIN_DEPOSIT = NEAR;
/** NSLP fee curve: `nslp_liquidity_target`, `nslp_min/max_discount_basis_points` (the contract's init values). */
export const META_POOL_NSLP = { liquidityTarget: 10_000n * NEAR, minDiscountBps: 25, maxDiscountBps: 180 } as const;
/** Shares of the liquid-unstake fee: treasury 25 %, operator 3 %, developers 2 % (types.rs defaults). */
const TREASURY_CUT_BPS = 2_500n;
const OPERATOR_CUT_BPS = 300n;
const DEVELOPERS_CUT_BPS = 200n;
const DEVELOPERS_ACCOUNT = 'developers.near';

/** Genesis: the NSLP's liquidity, the treasury's first stake, and the rewards accrued "before" the devnet began. */
const GENESIS_NSLP_LIQUIDITY = 15_000n * NEAR;
const GENESIS_STAKE = 100_000n * NEAR;
const GENESIS_REWARD_PERCENT = 25n;

interface Account {
  available: bigint;
  stakeShares: bigint;
  nslpShares: bigint;
}

interface MetaPoolState {
  contractAccountBalance: bigint;
  epochStakeOrders: bigint;
  totalForStaking: bigint;
  totalActuallyStaked: bigint;
  totalStakeShares: bigint;
}

export class StakeADevnet implements DevnetDex {
  readonly id = 'StakeA' as const;
  private readonly state: MetaPoolState = { contractAccountBalance: 0n, epochStakeOrders: 0n, totalForStaking: 0n, totalActuallyStaked: 0n, totalStakeShares: 0n };
  /** The accounts map; the NSLP is the account NSLP_ACCOUNT (as in the contract, an id no one can sign for). */
  private readonly accounts = new Map<string, Account>();
  private readonly epochs = new EpochClock();
  private owner = '';
  private contractId = '';

  genesis(world: World): void {
    const { chain, contracts, treasury } = world;
    this.owner = treasury;
    const contractId = contracts.StakeA;
    this.contractId = contractId;
    const args = {
      owner_account_id: treasury,
      treasury_account_id: this.treasuryAccount(world),
      operator_account_id: this.operatorAccount(world),
      meta_token_account_id: `meta-token.${contractId}`,
      // Not in the real init's arguments (the contract serves ft_metadata from code): the devnet has no RPC, so the
      // indexer learns the metadata from the init call, as it does for every devnet token.
      metadata: initMetadata(STAKED_TOKEN_METADATA.StakeA),
    };
    chain.transact(treasury, contractId, [{ method: 'new', args, gas: 100n * TGAS }], (r) => this.writeState(r));
    this.addLiquidity(world, treasury, GENESIS_NSLP_LIQUIDITY);
    this.stake(world, treasury, GENESIS_STAKE);
    this.distributeRewards(world, (this.state.totalForStaking * GENESIS_REWARD_PERCENT) / 100n);
  }

  act(world: World, trader: string): void {
    const { rng } = world;
    if (this.epochs.due(world)) {
      this.distributeRewards(world, epochReward(world, this.state.totalForStaking));
      return;
    }
    const owned = this.accounts.get(trader)?.stakeShares ?? 0n;
    if (owned > NEAR && rng.chance(0.35)) {
      const st = rng.bigint(NEAR / 10n, owned / 2n);
      const quote = this.liquidUnstakeQuote(st);
      // One in twenty asks for more NEAR than the pool gives: "Price changed, ..." after the first two logs.
      const minExpected = rng.chance(0.05) ? quote.amountOut + 1n : (quote.amountOut * 99n) / 100n;
      this.liquidUnstake(world, trader, st, minExpected);
    } else {
      // One stake in twenty is below the minimum deposit and fails before logging anything.
      const deposit = rng.chance(0.05) ? rng.bigint(1n, META_POOL_MIN_DEPOSIT - 1n) : rng.bigint(META_POOL_MIN_DEPOSIT, 200n * NEAR);
      this.stake(world, trader, deposit);
    }
  }

  /** [total_for_staking, total_stake_shares]: what the pools row holds after the last `STATE` write. */
  reserves(): Map<string, bigint[]> {
    return this.contractId === '' ? new Map() : new Map([[this.contractId, [this.state.totalForStaking, this.state.totalStakeShares]]]);
  }

  /** stNEAR held by `account` in the contract's ledger. */
  stNearOf(account: string): bigint {
    return this.accounts.get(account)?.stakeShares ?? 0n;
  }

  /** NEAR the liquidity pool can pay out now. */
  nslpAvailable(): bigint {
    return this.accounts.get(NSLP_ACCOUNT)?.available ?? 0n;
  }

  /**
   * The views `dexlake bootstrap` reads, in the contract's answer shapes (dexes/stake-a/README.md "Bootstrap"):
   * `get_contract_state` (`GetContractStateResult`: U128 figures as strings, u16 basis points and counts as numbers;
   * what the model does not keep, such as delayed unstakes, META rewards and epochs, is 0) and `ft_metadata` (the
   * metadata the devnet's init gave).
   */
  view(world: World, contractId: string, method: string): RpcViewAnswer | undefined {
    if (contractId !== this.contractId) return undefined;
    if (method === 'ft_metadata') return { value: initMetadata(STAKED_TOKEN_METADATA.StakeA) };
    if (method !== 'get_contract_state') return undefined;
    const st = this.state;
    const nslp = this.accounts.get(NSLP_ACCOUNT) ?? emptyAccount();
    const nslpValue = nslp.available + amountFromShares(nslp.stakeShares, st.totalForStaking, st.totalStakeShares);
    const u128 = (v: bigint) => v.toString();
    return {
      value: {
        env_epoch_height: '0',
        contract_account_balance: u128(st.contractAccountBalance),
        total_available: u128(this.totalAvailable()),
        total_for_staking: u128(st.totalForStaking),
        total_actually_staked: u128(st.totalActuallyStaked),
        epoch_stake_orders: u128(st.epochStakeOrders),
        epoch_unstake_orders: '0',
        total_unstaked_and_waiting: '0',
        total_stake_shares: u128(st.totalStakeShares),
        st_near_price: u128(amountFromShares(NEAR, st.totalForStaking, st.totalStakeShares)),
        total_unstake_claims: '0',
        retrieved_for_unstake_claims: '0',
        reserve_for_unstake_claims: '0',
        total_meta: '0',
        accumulated_staked_rewards: '0',
        nslp_liquidity: u128(nslp.available),
        nslp_target: u128(META_POOL_NSLP.liquidityTarget),
        nslp_stnear_balance: u128(nslp.stakeShares),
        nslp_share_price: u128(amountFromShares(NEAR, nslpValue, nslp.nslpShares)),
        nslp_total_shares: u128(nslp.nslpShares),
        nslp_current_discount_basis_points: metaPoolDiscountBasisPoints(META_POOL_NSLP, nslp.available, 10n * NEAR),
        nslp_min_discount_basis_points: META_POOL_NSLP.minDiscountBps,
        nslp_max_discount_basis_points: META_POOL_NSLP.maxDiscountBps,
        accounts_count: String(this.accounts.size),
        staking_pools_count: 1,
        min_deposit_amount: u128(META_POOL_MIN_DEPOSIT),
        est_meta_rewards_stakers: '0',
        est_meta_rewards_lp: '0',
        est_meta_rewards_lu: '0',
        max_meta_rewards_stakers: '0',
        max_meta_rewards_lp: '0',
        max_meta_rewards_lu: '0',
        unstaked_for_rebalance: '0',
      },
    };
  }

  /** `deposit_and_stake {}` with `deposit` attached, signed by `account`. */
  stake(world: World, account: string, deposit: bigint): Receipt {
    const call = { method: 'deposit_and_stake', args: {}, deposit, gas: 50n * TGAS };
    return world.chain.transact(account, world.contracts.StakeA, [call], this.staking(world, account, deposit));
  }

  /** A user's `deposit_and_stake` (a route's stake). */
  entry(world: World, contractId: string, method: string, _args: Record<string, unknown>, predecessorId: string, deposit: bigint): Handler | undefined {
    return contractId === world.contracts.StakeA && method === 'deposit_and_stake' ? this.staking(world, predecessorId, deposit) : undefined;
  }

  /** `deposit_and_stake` of `deposit` by `account`, inside the contract's receipt. */
  private staking(world: World, account: string, deposit: bigint): Handler {
    const contractId = world.contracts.StakeA;
    return (r) => {
      this.snapshot(r);
      const st = this.state;
      if (deposit < META_POOL_MIN_DEPOSIT) throw new Panic(`minimum deposit amount is ${META_POOL_MIN_DEPOSIT}`);
      const amount = this.depositInto(r, account, deposit);
      // internal_stake_from_account: floor(amount·S/N) shares (the first staker gets them 1:1).
      const acc = this.accounts.get(account)!;
      const shares = sharesFromAmount(amount, st.totalForStaking, st.totalStakeShares);
      if (shares <= 0n) throw new Panic('assertion failed: num_shares > 0');
      acc.available -= amount;
      acc.stakeShares += shares;
      st.totalStakeShares += shares;
      st.totalForStaking += amount;
      st.epochStakeOrders += amount;
      r.log(`{"event":"STAKE","account":"${account}","amount":"${amount}"}`);
      this.clearNslp(r, amount);
      r.event('nep141', '1.0.0', 'ft_mint', [{ owner_id: account, amount: shares.toString() }]);
      this.writeState(r);
      recordTrade(world, r, { dex: 'StakeA', poolId: contractId, trader: account, tokenIn: NEAR_TOKEN_ID, tokenOut: contractId, amountIn: amount, amountOut: shares });
      return shares.toString();
    };
  }

  /** What `liquid_unstake` of `st` pays now: NEAR out and the fee, in NEAR (stake-math.ts, lib.rs `liquid_unstake`). */
  liquidUnstakeQuote(st: bigint): { nears: bigint; fee: bigint; amountOut: bigint } {
    const { totalForStaking: n, totalStakeShares: s } = this.state;
    const { nearsOut, fee, nearToReceive } = metaPoolLiquidUnstakePrice([n, s], META_POOL_NSLP, this.nslpAvailable(), st);
    return { nears: nearsOut, fee, amountOut: nearToReceive };
  }

  /** `liquid_unstake {st_near_to_burn, min_expected_near}` signed by `account`. */
  liquidUnstake(world: World, account: string, stNearToBurn: bigint, minExpectedNear: bigint): Receipt {
    const contractId = world.contracts.StakeA;
    const args = { st_near_to_burn: stNearToBurn.toString(), min_expected_near: minExpectedNear.toString() };
    return world.chain.transact(account, contractId, [{ method: 'liquid_unstake', args, gas: 75n * TGAS }], (r) => {
      this.snapshot(r);
      const st = this.state;
      const user = this.accounts.get(account);
      if (user === undefined) throw new Panic(`account ${account} is not registered`);
      const owned = user.stakeShares;
      const toSell = isClose(stNearToBurn, owned) ? owned : stNearToBurn;
      r.log(`st_near owned:${owned}, to_sell:${toSell}`);
      if (owned < toSell) throw new Panic(`Not enough stNEAR. You own ${owned}`);
      const nslp = this.account(NSLP_ACCOUNT);
      r.log(`get_discount_basis_points available_near=${nslp.available}  max_nears_to_pay=${amountFromShares(toSell, st.totalForStaking, st.totalStakeShares)}`);
      const { fee, amountOut } = this.liquidUnstakeQuote(toSell);
      if (amountOut < minExpectedNear) throw new Panic(`Price changed, your min amount ${minExpectedNear} is not satisfied ${amountOut}. Try again`);
      if (nslp.available < amountOut) throw new Panic('Not enough liquidity in the liquidity pool');
      nslp.available -= amountOut;
      const feeInStNear = sharesFromAmount(fee, st.totalForStaking, st.totalStakeShares);
      const treasuryCut = metaPoolApplyPct(TREASURY_CUT_BPS, feeInStNear);
      const operatorCut = metaPoolApplyPct(OPERATOR_CUT_BPS, feeInStNear);
      const developersCut = metaPoolApplyPct(DEVELOPERS_CUT_BPS, feeInStNear);
      this.account(this.treasuryAccount(world)).stakeShares += treasuryCut;
      this.account(this.operatorAccount(world)).stakeShares += operatorCut;
      this.account(DEVELOPERS_ACCOUNT).stakeShares += developersCut;
      r.log(`treasury_st_near_cut:${treasuryCut} operator_st_near_cut:${operatorCut} developers_st_near_cut:${developersCut} fee_in_st_near:${feeInStNear}`);
      if (feeInStNear <= treasuryCut + operatorCut + developersCut) {
        throw new Panic('assertion failed: fee_in_st_near > treasury_st_near_cut + developers_st_near_cut + operator_st_near_cut');
      }
      const toLiquidityPool = toSell - (treasuryCut + operatorCut + developersCut);
      r.log(`nslp_account.add_st_near ${toLiquidityPool}`);
      nslp.stakeShares += toLiquidityPool;
      user.stakeShares -= toSell;
      // Straight to the user's wallet (the "simplified user flow"), not left as available balance.
      st.contractAccountBalance -= amountOut;
      r.transfer(account, amountOut);
      r.log(`@${account} liquid-unstaked ${toSell} stNEAR, got ${amountOut} NEAR`);
      r.log(`{"event":"LIQ.U","account_id":"${account}","stnear":"${toSell}","near":"${amountOut}"}`);
      this.writeState(r);
      recordTrade(world, r, { dex: 'StakeA', poolId: contractId, trader: account, tokenIn: contractId, tokenOut: NEAR_TOKEN_ID, amountIn: toSell, amountOut });
      return { near: amountOut.toString(), fee: feeInStNear.toString(), meta: '0' };
    });
  }

  /** `nslp_add_liquidity {}` with `deposit` attached: NEAR into the liquid-unstake pool. */
  private addLiquidity(world: World, account: string, deposit: bigint): void {
    const call = { method: 'nslp_add_liquidity', args: {}, deposit, gas: 50n * TGAS };
    world.chain.transact(account, world.contracts.StakeA, [call], (r) => {
      this.snapshot(r);
      const amount = this.depositInto(r, account, deposit);
      const acc = this.accounts.get(account)!;
      const nslp = this.account(NSLP_ACCOUNT);
      const poolValue = nslp.available + amountFromShares(nslp.stakeShares, this.state.totalForStaking, this.state.totalStakeShares);
      const shares = sharesFromAmount(amount, poolValue, nslp.nslpShares);
      acc.available -= amount;
      acc.nslpShares += shares;
      nslp.available += amount;
      nslp.nslpShares += shares;
      r.log(`{"event":"ADD.L","account_id":"${account}","amount":"${amount}"}`);
      this.writeState(r);
    });
  }

  /** The operator's reward update: the pools' rewards raise total_for_staking, so the share price. */
  private distributeRewards(world: World, rewards: bigint): void {
    const call = { method: 'distribute_rewards', args: { sp_inx: 0 }, gas: 100n * TGAS };
    world.chain.transact(this.operatorAccount(world), world.contracts.StakeA, [call], (r) => {
      this.snapshot(r);
      this.state.totalForStaking += rewards;
      this.state.totalActuallyStaked += rewards;
      this.writeState(r);
    });
  }

  /** internal_deposit_attached_near_into: a new account keeps 0.00125 NEAR for its storage. */
  private depositInto(r: Receipt, accountId: string, deposit: bigint): bigint {
    let amount = deposit;
    if (!this.accounts.has(accountId)) {
      r.log(`new account, ${META_POOL_STORAGE_COST_YOCTOS} yoctos used for storage_deposit`);
      if (deposit <= META_POOL_STORAGE_COST_YOCTOS) throw new Panic('deposit too low');
      amount = deposit - META_POOL_STORAGE_COST_YOCTOS;
    }
    const acc = this.account(accountId);
    acc.available += amount;
    this.state.contractAccountBalance += amount;
    r.log(`${amount} deposited into @${accountId}'s account. New available balance is ${acc.available}`);
    return amount;
  }

  /**
   * nslp_try_internal_clearing after a stake of `staked`: when the NSLP holds stNEAR it sells up to the staked
   * amount's worth to the staker at par (the staker keeps the minted stNEAR; the NSLP's is burned and it takes the
   * NEAR), so the totals shrink by that much.
   */
  private clearNslp(r: Receipt, staked: bigint): void {
    const st = this.state;
    const nslp = this.account(NSLP_ACCOUNT);
    r.log(`nslp internal clearing nslp_account.stake_shares ${nslp.stakeShares}`);
    if (nslp.stakeShares === 0n) return;
    const valued = amountFromShares(nslp.stakeShares, st.totalForStaking, st.totalStakeShares);
    const [stNearToSell, nearValue] = staked >= valued ? [nslp.stakeShares, valued] : [sharesFromAmount(staked, st.totalForStaking, st.totalStakeShares), staked];
    r.log(`NSLP clearing ${stNearToSell} ${nearValue}`);
    r.log(`{"event":"NSLP.clr","shares":"${stNearToSell}","amount":"${nearValue}"}`);
    st.totalForStaking -= nearValue;
    st.epochStakeOrders -= nearValue;
    nslp.available += nearValue;
    nslp.stakeShares -= stNearToSell;
    st.totalStakeShares -= stNearToSell;
  }

  private account(id: string): Account {
    let acc = this.accounts.get(id);
    if (!acc) {
      acc = emptyAccount();
      this.accounts.set(id, acc);
    }
    return acc;
  }

  /** Saves the whole contract state before `r` changes it, restored if `r` fails. */
  private snapshot(r: Receipt): void {
    const state = { ...this.state };
    const accounts = new Map([...this.accounts].map(([id, a]) => [id, { ...a }]));
    r.onRevert(() => {
      Object.assign(this.state, state);
      this.accounts.clear();
      for (const [id, a] of accounts) this.accounts.set(id, a);
    });
  }

  /** `STATE` down to the NSLP fee curve, the fields dexes/stake-a/state.ts reads (the struct goes on after them). */
  private writeState(r: Receipt): void {
    const st = this.state;
    const prefix = (suffix: string) => Buffer.from(`A${suffix}`);
    const w = new BorshWriter()
      .string(this.owner)
      .u8(0) // contract_busy
      .u8(0) // staking_paused
      .u128(st.contractAccountBalance)
      .u128(0n) // retrieved_for_unstake_claims
      .u128(this.totalAvailable())
      .u128(st.epochStakeOrders)
      .u128(0n) // epoch_unstake_orders
      .u64(0n) // epoch_last_clearing
      .u128(st.totalForStaking)
      .u128(st.totalActuallyStaked)
      .u128(st.totalStakeShares)
      .u128(0n) // total_meta
      .u128(0n) // total_unstaked_and_waiting
      .u128(0n) // total_unstake_claims
      .u128(0n) // accumulated_staked_rewards
      // accounts: UnorderedMap::new(b"A"): key index, keys and values under A+i, A+k, A+v
      .bytesVec(prefix('i'))
      .u64(BigInt(this.accounts.size))
      .bytesVec(prefix('k'))
      .u64(BigInt(this.accounts.size))
      .bytesVec(prefix('v'))
      // staking_pools: the one validator the devnet stakes with (no staking-pool calls are simulated)
      .vec([VALIDATOR], (v, id) => v.string(id).u16(10_000).u8(0).u128(st.totalActuallyStaked).u128(0n).u64(0n).u64(0n))
      .bytesVec(Buffer.from('L')) // loan_requests: LookupMap::new(b"L")
      .u128(META_POOL_NSLP.liquidityTarget)
      .u16(META_POOL_NSLP.maxDiscountBps)
      .u16(META_POOL_NSLP.minDiscountBps);
    r.write(STATE_KEY, w.bytes());
  }

  private totalAvailable(): bigint {
    let total = 0n;
    for (const a of this.accounts.values()) total += a.available;
    return total;
  }

  private treasuryAccount(world: World): string {
    return `treasury.${world.contracts.StakeA}`;
  }

  private operatorAccount(world: World): string {
    return `operator.${world.contracts.StakeA}`;
  }
}

/** The staking pool of STATE's list. */
const VALIDATOR = 'validator.poolv1.near';

/** The contract's NSLP_INTERNAL_ACCOUNT. */
const NSLP_ACCOUNT = '..NSLP..';

function emptyAccount(): Account {
  return { available: 0n, stakeShares: 0n, nslpShares: 0n };
}
