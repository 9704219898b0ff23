// The devnet AmmC model's own swap arithmetic: the xyk DEX ("Plach") that Intear's DEX engine runs, written for the
// model in TypeScript (bigint) from the contract's Rust source (S: contract source), INTEARnear/dex @ 430bc76
// (430bc768370f3126185a0ada4377f468f76466f6): `dexes/xyk/src/lib.rs` (`XykDex::swap` with its inner `collect_fees`
// and `convert_fees_to_quote_asset`, `mul_div`, `mul_div_sum`, `mul_add_div`) and `dexes/xyk/types/src/lib.rs`
// (`FULL_FEE_FRACTION`, `PROTOCOL_FEE*`, `should_reduce_fee`, `FeeConfiguration::with_protocol_fee`). The older
// stored version @ d5dec3e (LaunchV1 pools only, `convert_fees_to_near`) swaps with the same arithmetic for the pools
// the devnet makes. Each function below names the source function it follows. (The repository's newest snapshot,
// @ 819b2e0, no longer holds dexes/xyk; the library's file index keeps those versions: `read_file` INTEARnear/dex
// `dexes/xyk/src/lib.rs` at the commit above.)
//
// It imports nothing of dexes/amm-c/. The indexer keeps AmmC pool states as the logged `pool_updated` views give
// them and prices AmmC routes with dexes/amm-c/math.ts, so a route that dexes/amm-c quotes and the devnet then pays
// (its amounts, the reserves it leaves) is checked by two implementations, not one.
//
// Not modelled: `FeeConfiguration::V2` (scheduled fees; the devnet creates V1 fees only), `LaunchV2` pools (quoted in
// another asset than NEAR), referral fees (`with_referral_fee` adds one only for a referrer that registered
// `ReferralSettings`, and no devnet account does), `LAST_CREATED_POOL_ID_MARKER`, and the fee ledgers
// (`fees_collected_by_users`, `community_owned_fees`): the fees those receive leave the pool's reserves as the
// contract's do, and the model does not count them anywhere.

/** 100% of a fee (S: types `FULL_FEE_FRACTION`). */
export const FULL_FEE_FRACTION = 1_000_000n;
/** The protocol's fee, 0.1%, and its reduced fee, 0.0001%, when every asset of the swap is "stable" (S: types
 * `PROTOCOL_FEE`, `PROTOCOL_FEE_REDUCED`). */
export const PROTOCOL_FEE = 1_000;
export const PROTOCOL_FEE_REDUCED = 1;
/** S: types `PROTOCOL_FEE_RECEIVER_ID`. */
export const PROTOCOL_FEE_RECEIVER_ID = 'plach.intear.near';
/** S: types `PROTOCOL_FEE_REDUCE_ASSET_ACCOUNTS` (`NEAR_ACCOUNT_ID` is `near`, the account id of `AssetId::Near`). */
const REDUCE_ASSET_ACCOUNTS: readonly string[] = ['17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1', 'usdt.tether-token.near', 'near'];
/** S: types `PROTOCOL_FEE_REDUCE_ASSET_PARENT_ACCOUNTS`. */
const REDUCE_ASSET_PARENT_ACCOUNTS: readonly string[] = ['omft.near', 'omni.hot.tg'];
const U128_MAX = (1n << 128n) - 1n;

/** A pool kind as the model creates them: `PrivateLatest`, `PublicLatest`, `LaunchV1` (quoted in NEAR). */
export type XykPoolType = 'private' | 'public' | 'launch';

/** One `(FeeReceiver, FeeFraction)` of a pool's fees: `Pool` (kept in the reserves), `Account(id)`, `Community(id)`. */
export interface XykFeeReceiver {
  kind: 'pool' | 'account' | 'community';
  accountId: string | null;
  /** Millionths of the input. */
  fee: number;
}

/** What a swap reads of a pool: its two assets (`near` or a NEP-141 contract id; a launch pool's first is its
 * quote asset, NEAR), their balances (a launch pool's NEAR counts its phantom liquidity, as `near_amount` does),
 * and a launch pool's phantom liquidity. */
export interface XykSwapPool {
  poolType: XykPoolType;
  tokens: readonly string[];
  amounts: readonly bigint[];
  phantomLiquidity: bigint | null;
}

export type XykSwapAmount = { exactIn: bigint } | { exactOut: bigint };

/** One item of the `swap` event's `fees_breakdown`: `(FeeReceiver, AssetId, U128)`. */
export interface XykFeeEntry {
  receiver: XykFeeReceiver;
  asset: string;
  amount: bigint;
}

export interface XykSwapResult {
  amountIn: bigint;
  amountOut: bigint;
  feesBreakdown: XykFeeEntry[];
  /** The pool's balances after the swap, in `tokens` order. */
  amountsAfter: [bigint, bigint];
}

/** The contract panicked; `message` is its text. */
export class XykPanic extends Error {}

function expect(condition: boolean, message: string): asserts condition {
  if (!condition) throw new XykPanic(message);
}

/** S: lib.rs `u256_to_u128` (and the u128 `checked_*` calls that `.expect("Overflow")`). */
function u128(value: bigint, message = 'Value must be less than 128 bits'): bigint {
  expect(value >= 0n && value <= U128_MAX, message);
  return value;
}

/** `a * b / c`, rounded down (S: lib.rs `mul_div`, through `mul_add_div`: exact in 256 bits). */
export function mulDiv(a: bigint, b: bigint, c: bigint): bigint {
  return mulAddDiv(a, b, 0n, c);
}

/** `a * b / (c + d)`, rounded down (S: lib.rs `mul_div_sum`). */
export function mulDivSum(a: bigint, b: bigint, c: bigint, d: bigint): bigint {
  return u128((a * b) / (c + d));
}

/** `(a * b + add) / c`, rounded down (S: lib.rs `mul_add_div` / `mul_add_div_u256`). */
export function mulAddDiv(a: bigint, b: bigint, add: bigint, c: bigint): bigint {
  return u128((a * b + add) / c);
}

/** Whether `account` is a direct sub-account of `parent` (near-account-id `AccountIdRef::is_sub_account_of`: strip
 * `parent`, then one `.`, and what is left has no `.`). */
function isSubAccountOf(account: string, parent: string): boolean {
  if (!account.endsWith(`.${parent}`)) return false;
  const prefix = account.slice(0, account.length - parent.length - 1);
  return prefix.length > 0 && !prefix.includes('.');
}

/** Every asset is a listed stable account or a direct sub-account of a listed parent (S: types `should_reduce_fee`). */
export function shouldReduceFee(assetAccountIds: readonly string[]): boolean {
  return assetAccountIds.every((id) => REDUCE_ASSET_ACCOUNTS.includes(id) || REDUCE_ASSET_PARENT_ACCOUNTS.some((p) => isSubAccountOf(id, p)));
}

/**
 * The fees a swap pays with `FeeConfiguration::V1(configured)`: the pool's own, then the protocol's receiver
 * `Account(plach.intear.near)` (S: types `FeeConfiguration::with_protocol_fee`, V1 arm): PROTOCOL_FEE, or
 * PROTOCOL_FEE_REDUCED when `shouldReduceFee` of the swap's two assets, or 0 when the pool has no fees of its own
 * (that receiver is still appended, with fraction 0).
 */
export function withProtocolFee(configured: readonly XykFeeReceiver[], assetAccountIds: readonly string[]): XykFeeReceiver[] {
  const fee = configured.length === 0 ? 0 : shouldReduceFee(assetAccountIds) ? PROTOCOL_FEE_REDUCED : PROTOCOL_FEE;
  return [...configured, { kind: 'account', accountId: PROTOCOL_FEE_RECEIVER_ID, fee }];
}

/** A `fees_breakdown` entry before a launch-pool sell converts it (S: lib.rs `FeeBreakdownEntry`). */
interface PendingFee {
  receiver: XykFeeReceiver;
  /** `Normal` entries' asset; null while the fee waits for `convertFeesToQuoteAsset`. */
  asset: string | null;
  amount: bigint;
}

/**
 * Each receiver's floor(amount·fraction/10^6), in receiver order; `Pool` fees go back into the reserves; on a
 * launch-pool sell the `Account` and `Community` fees are deferred for conversion, otherwise a `Community` fee needs
 * a NEAR input (S: lib.rs `XykDex::swap`, inner `collect_fees`).
 */
function collectFees(amountIn: bigint, assetIn: string, fees: readonly XykFeeReceiver[], convertToQuoteAsset: boolean): { amountInAfterFees: bigint; poolFee: bigint; entries: PendingFee[] } {
  const entries: PendingFee[] = [];
  let totalFees = 0n;
  let poolFee = 0n;
  for (const receiver of fees) {
    const amount = mulDiv(amountIn, BigInt(receiver.fee), FULL_FEE_FRACTION);
    totalFees = u128(totalFees + amount, 'Overflow');
    if (receiver.kind === 'pool') {
      entries.push({ receiver, asset: assetIn, amount });
      poolFee = u128(poolFee + amount, 'Overflow');
    } else if (convertToQuoteAsset) {
      entries.push({ receiver, asset: null, amount });
    } else {
      if (receiver.kind === 'community') expect(assetIn === 'near', 'Community fees can only be collected in NEAR');
      entries.push({ receiver, asset: assetIn, amount });
    }
  }
  expect(totalFees <= amountIn, 'Fee exceeds 100%');
  return { amountInAfterFees: amountIn - totalFees, poolFee, entries };
}

/**
 * A launch-pool sell: each deferred fee, in breakdown order, is sold through the pool for the quote asset,
 * floor(fee·out/(in + fee)), its tokens staying in the pool (S: lib.rs `XykDex::swap`, inner
 * `convert_fees_to_quote_asset`). Returns the balances after.
 */
function convertFeesToQuoteAsset(quoteAsset: string, inBalance: bigint, outBalance: bigint, entries: PendingFee[]): [bigint, bigint] {
  for (const entry of entries) {
    if (entry.asset !== null) continue;
    if (entry.receiver.kind === 'community') expect(quoteAsset === 'near', 'Community fees can only be collected in NEAR');
    const bought = mulDivSum(entry.amount, outBalance, inBalance, entry.amount);
    inBalance = u128(inBalance + entry.amount, 'Overflow');
    expect(bought <= outBalance, 'Underflow');
    outBalance -= bought;
    entry.asset = quoteAsset;
    entry.amount = bought;
  }
  return [inBalance, outBalance];
}

/**
 * The xyk DEX's `swap` of `tokenIn` for `tokenOut` in `pool`, charged `fees` (the pool's fees with the protocol's,
 * `withProtocolFee`). Throws XykPanic with the contract's message where it panics. S: lib.rs `XykDex::swap`:
 * - exact in a: fees f_i = floor(a·fee_i/10^6), a' = a − Σf_i, out = floor(a'·Y/(X + a')) (`mul_div_sum`);
 * - exact out b (b < Y): a0 = floor(X·b/(Y − b)) + 1, a = ceil(a0·10^6/(10^6 − Σfee_i)) (`mul_add_div` with
 *   denominator − 1 added), then the fees of a as for exact in, and exactly b out;
 * - the input side gains a' and the `Pool` fees, the output side loses out; a launch-pool sell (output = its quote
 *   asset) then converts the other fees (`convertFeesToQuoteAsset`);
 * - a `LaunchV1` pool may not end with less NEAR than its phantom liquidity.
 */
export function xykSwap(pool: XykSwapPool, fees: readonly XykFeeReceiver[], tokenIn: string, tokenOut: string, amount: XykSwapAmount): XykSwapResult {
  const [asset0, asset1] = pool.tokens;
  const [balance0, balance1] = pool.amounts;
  if (asset0 === undefined || asset1 === undefined || balance0 === undefined || balance1 === undefined) throw new RangeError('xyk pool: two assets and two balances');
  const isLaunch = pool.poolType === 'launch';
  // LaunchV1: the quote asset is AssetId::Near, the pool's first.
  const convertToQuoteAsset = isLaunch && tokenOut === asset0;
  expect(asset0 === tokenIn || asset1 === tokenIn, 'Invalid asset in');
  expect(asset0 === tokenOut || asset1 === tokenOut, 'Invalid asset out');
  expect(balance0 > 0n && balance1 > 0n, 'Pool is empty');
  const forward = asset0 === tokenIn && asset1 === tokenOut;
  const backward = asset1 === tokenIn && asset0 === tokenOut;
  expect(forward !== backward, 'Invalid assets or pool ID');
  let inBalance = forward ? balance0 : balance1;
  let outBalance = forward ? balance1 : balance0;

  let amountIn: bigint;
  let amountOut: bigint;
  let collected: ReturnType<typeof collectFees>;
  if ('exactIn' in amount) {
    amountIn = amount.exactIn;
    expect(amountIn > 0n, 'Amount must be greater than 0');
    collected = collectFees(amountIn, tokenIn, fees, convertToQuoteAsset);
    amountOut = mulDivSum(collected.amountInAfterFees, outBalance, inBalance, collected.amountInAfterFees);
  } else {
    amountOut = amount.exactOut;
    expect(amountOut > 0n, 'Amount must be greater than 0');
    expect(amountOut < outBalance, 'Amount must be less than out balance');
    const withoutFees = u128(mulDiv(inBalance, amountOut, outBalance - amountOut) + 1n);
    const totalFeeFraction = fees.reduce((sum, r) => sum + BigInt(r.fee), 0n);
    const feeDenominator = FULL_FEE_FRACTION - totalFeeFraction;
    expect(feeDenominator >= 0n, 'Fee fraction somehow above 100%');
    expect(feeDenominator >= 1n, 'Fee fraction somehow equals 100%');
    amountIn = mulAddDiv(withoutFees, FULL_FEE_FRACTION, feeDenominator - 1n, feeDenominator);
    collected = collectFees(amountIn, tokenIn, fees, convertToQuoteAsset);
  }
  inBalance = u128(u128(inBalance + collected.amountInAfterFees, 'Overflow') + collected.poolFee, 'Overflow');
  expect(amountOut <= outBalance, 'Underflow');
  outBalance -= amountOut;
  if (convertToQuoteAsset) [inBalance, outBalance] = convertFeesToQuoteAsset(tokenOut, inBalance, outBalance, collected.entries);

  const amountsAfter: [bigint, bigint] = forward ? [inBalance, outBalance] : [outBalance, inBalance];
  if (isLaunch) expect(amountsAfter[0] >= (pool.phantomLiquidity ?? 0n), "NEAR liquidity can't go lower than the initial phantom liquidity");
  const feesBreakdown = collected.entries.map((e): XykFeeEntry => ({ receiver: e.receiver, asset: e.asset ?? tokenOut, amount: e.amount }));
  return { amountIn, amountOut, feesBreakdown, amountsAfter };
}
