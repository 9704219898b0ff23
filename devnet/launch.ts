// Launch (Aidols, `aidols.near` = DexContracts.Launch) on the devnet: bonding curves of `*.aidols.near` tokens
// against wNEAR (DexContracts.Wrap). A launch is a `create_token` call to aidols.near (the devnet's name: the real
// method is not known) that writes the curve record, and the token's deployment (NEP-148 metadata, its whole supply
// minted to aidols.near, all of it on the curve). The curve starts at 10^33 tokens against 500 virtual wNEAR (the
// real state right after a launch that dexes/launch/README.md cites). Trades are `ft_transfer_call`s to aidols.near
// (50 TGas) with msg `{"token": <aidol token, null when selling>, "min_swap_amount": "Y", "referral": R}`: a buy
// sends wNEAR, a sell the aidol token. `ft_on_transfer` prices the trade with the model's own curve math,
// launch-math.ts (written from the public evidence: the contract's source is not public; that file says what each
// rule rests on; it imports nothing of dexes/launch/math.ts, which the indexer quotes with), logs
// `token_swap` with the curve's holds after the trade, writes the curve record, sends the output, and sends the
// referrer 1% of the fee in wNEAR (spec, referral facts: the fee is max(0.01 NEAR, 1% of the volume); a referrer
// without a wrap.near storage deposit loses its share: that ft_transfer fails). The rest of the fee stays with
// aidols.near. A trade below `min_swap_amount` panics, and `ft_resolve_transfer` refunds it.
//
// The curve record is the real layout (dexes/launch/README.md, T): key `0x00 ‖ borsh(String token_id)`, value borsh
// `{token_hold: u128, wnear_hold: u128, is_deployed: bool, is_tradable: bool}`, written on every change.
// Graduation (the devnet's rule; the real threshold is not known): the buy that brings the wNEAR hold to
// GRADUATION_WNEAR_HOLD goes through, then the curve is deployed and no longer tradable (its record says so); the
// next action launches a successor (`tganza2.aidols.near` ...), so three curves always trade.
// Simplifications: exact in only; the graduated token's DEX pool is not simulated; the event's standard is written
// `aidols` 1.0.0 (the real one is not known: dexes/launch/README.md).
import type { LaunchPoolState } from '../dexes/launch/events.ts';
import { BorshWriter } from '../near/borsh.ts';
import { Panic, type Handler, type Receipt } from './chain.ts';
import { AIDOLS_FEE_PERCENT, AIDOLS_MIN_FEE, aidolsBuy, aidolsSell } from './launch-math.ts';
import type { TokenSpec } from './tokens.ts';
import { recordTrade, type DevnetDex, type World } from './world.ts';

const TGAS = 10n ** 12n;
const NEAR = 10n ** 24n;
/** What the aggregator attaches to a Launch trade (near-facts.md). */
const TRADE_GAS = 50n * TGAS;
/** A curve at launch: the token's whole supply against 500 virtual wNEAR (dexes/launch/README.md). */
export const LAUNCH_CURVE_TOKENS = 10n ** 33n;
export const LAUNCH_VIRTUAL_WNEAR = 500n * NEAR;
/** The wNEAR hold at which a curve graduates: 300 real NEAR on top of the virtual 500 (the devnet's rule). */
export const GRADUATION_WNEAR_HOLD = 800n * NEAR;
/** The creator's first buy at launch, so every curve has traded from its first block on. */
const LAUNCHER_BUY = 20n * NEAR;
/** A referrer that never made a wrap.near storage deposit: its share of the fee is lost. */
export const UNREGISTERED_REFERRER = 'dexlake-referrer.near';

export interface LaunchCurve {
  spec: TokenSpec;
  /** As the curve record says; isDeployed and isTradable are always known here. */
  state: LaunchPoolState;
}

export class LaunchDevnet implements DevnetDex {
  readonly id = 'Launch' as const;
  /** Every curve launched, graduated ones included. */
  readonly curves = new Map<string, LaunchCurve>();
  /** The curves users trade, one per genesis token: a graduated one is replaced by its successor. */
  private readonly live: string[] = [];

  /** `tokens`: the aidol tokens launched at genesis (`<name>.aidols.near`, 24 decimals). */
  constructor(private readonly tokens: readonly TokenSpec[]) {}

  genesis(world: World): void {
    world.tokens.register(world.contracts.Launch, world.contracts.Wrap);
    for (const spec of this.tokens) {
      this.open(world, spec);
      this.live.push(spec.contractId);
    }
  }

  act(world: World, trader: string): void {
    const { rng, tokens, contracts } = world;
    this.replaceGraduated(world);
    const token = rng.pick(this.live);
    const { state } = this.curve(token);
    const referral = this.pickReferral(world, trader);
    const held = tokens.isRegistered(token, trader) ? tokens.balance(token, trader) : 0n;
    let amount: bigint;
    let tokenIn: string;
    let tokenOut: string;
    if (held > 1n && rng.chance(0.4)) {
      // Sell up to half of what the trader holds.
      [amount, tokenIn, tokenOut] = [rng.bigint(1n, held / 2n), token, contracts.Wrap];
    } else {
      // Buy with 0.1 NEAR up to a tenth of the trader's wNEAR (at most 20 NEAR).
      const cap = minBig(tokens.balance(contracts.Wrap, trader) / 10n, 20n * NEAR);
      if (cap <= NEAR / 10n) return;
      [amount, tokenIn, tokenOut] = [rng.bigint(NEAR / 10n, cap), contracts.Wrap, token];
    }
    const quote = quoteTrade(state, tokenIn, tokenOut, amount);
    if (quote === null) return;
    // One trade in twenty asks for more than the curve gives: the receipt fails and the input is refunded.
    const minOut = rng.chance(0.05) ? quote.amountOut + 1n : (quote.amountOut * 99n) / 100n;
    if (tokenOut === token) {
      // As an aggregator's route does, the buyer registers with the aidol token first when needed.
      if (!tokens.isRegistered(token, trader)) tokens.register(trader, token);
      this.buy(world, trader, token, amount, minOut, referral);
    } else {
      this.sell(world, trader, token, amount, minOut, referral);
    }
  }

  /** Every curve's record: what the decoder's pools hold once the blocks are indexed. */
  reserves(): Map<string, bigint[]> {
    return new Map([...this.curves].map(([token, c]) => [token, [...c.state.amounts]]));
  }

  /** aidols.near opens the curve (`create_token`, writing its record) and deploys the token (supply minted to itself). */
  launch(world: World, spec: TokenSpec): void {
    const { chain, contracts, treasury } = world;
    const curve: LaunchCurve = {
      spec,
      state: {
        kind: 'curve',
        tokens: [spec.contractId, contracts.Wrap],
        amounts: [LAUNCH_CURVE_TOKENS, LAUNCH_VIRTUAL_WNEAR],
        // The fee launch-math.ts charges, in the pool state's units (millionths of the volume; its wNEAR floor).
        totalFee: Number(AIDOLS_FEE_PERCENT * 10_000n),
        minFee: AIDOLS_MIN_FEE,
        isDeployed: false,
        isTradable: true,
      },
    };
    const args = { name: spec.name, symbol: spec.symbol };
    chain.transact(treasury, contracts.Launch, [{ method: 'create_token', args, gas: 100n * TGAS }], (r) => {
      this.curves.set(spec.contractId, curve);
      r.onRevert(() => this.curves.delete(spec.contractId));
      writeCurve(r, curve);
    });
    world.tokens.deploy(spec, contracts.Launch, LAUNCH_CURVE_TOKENS);
  }

  /** Buys `token` with `amount` wNEAR. */
  buy(world: World, trader: string, token: string, amount: bigint, minOut: bigint, referral: string | null): void {
    this.trade(world, trader, world.contracts.Wrap, token, token, amount, minOut, referral);
  }

  /** Sells `amount` of `token` for wNEAR. */
  sell(world: World, trader: string, token: string, amount: bigint, minOut: bigint, referral: string | null): void {
    this.trade(world, trader, token, world.contracts.Wrap, token, amount, minOut, referral);
  }

  curve(token: string): LaunchCurve {
    const curve = this.curves.get(token);
    if (curve === undefined) throw new Error(`devnet: no Launch curve for ${token}`);
    return curve;
  }

  /** A launch and the treasury's first buy. */
  private open(world: World, spec: TokenSpec): void {
    const { tokens, contracts, treasury } = world;
    this.launch(world, spec);
    const quote = quoteTrade(this.curve(spec.contractId).state, contracts.Wrap, spec.contractId, LAUNCHER_BUY);
    if (quote === null || tokens.balance(contracts.Wrap, treasury) < LAUNCHER_BUY) return;
    tokens.register(treasury, spec.contractId);
    this.buy(world, treasury, spec.contractId, LAUNCHER_BUY, quote.amountOut, null);
  }

  /** Each graduated live curve is replaced by a fresh launch: `tganza.aidols.near` -> `tganza2.aidols.near` ... */
  private replaceGraduated(world: World): void {
    this.live.forEach((token, slot) => {
      if (this.curve(token).state.isTradable) return;
      const first = this.tokens[slot]!;
      const [label, ...parent] = first.contractId.split('.');
      let n = 2;
      while (this.curves.has(`${label}${n}.${parent.join('.')}`)) n++;
      const spec = { ...first, contractId: `${label}${n}.${parent.join('.')}`, symbol: `${first.symbol}${n}`, name: `${first.name} ${n}` };
      this.open(world, spec);
      this.live[slot] = spec.contractId;
    });
  }

  private trade(world: World, trader: string, tokenIn: string, tokenOut: string, token: string, amount: bigint, minOut: bigint, referral: string | null): void {
    const msg = JSON.stringify({ token: tokenOut === token ? token : null, min_swap_amount: minOut.toString(), referral });
    world.tokens.transferCall(trader, tokenIn, world.contracts.Launch, amount, msg, (r) => this.onTransfer(world, r, { trader, token, tokenIn, tokenOut, amount, minOut, referral }), TRADE_GAS);
  }

  /** A user's `ft_on_transfer` (a route's trade): a buy sends wNEAR with `{"token": T}`, a sell the aidol token with
   * `{"token": null}`; the token sent is the predecessor. */
  entry(world: World, contractId: string, method: string, args: Record<string, unknown>, predecessorId: string): Handler | undefined {
    if (contractId !== world.contracts.Launch || method !== 'ft_on_transfer' || typeof args.msg !== 'string' || typeof args.sender_id !== 'string' || typeof args.amount !== 'string') return undefined;
    let msg: { token?: unknown; min_swap_amount?: unknown; referral?: unknown };
    try {
      msg = JSON.parse(args.msg) as typeof msg;
    } catch {
      return undefined;
    }
    const buy = typeof msg.token === 'string';
    const token = buy ? (msg.token as string) : predecessorId;
    const trade = {
      trader: args.sender_id,
      token,
      tokenIn: predecessorId,
      tokenOut: buy ? token : world.contracts.Wrap,
      amount: BigInt(args.amount),
      minOut: BigInt(String(msg.min_swap_amount ?? '0')),
      referral: typeof msg.referral === 'string' ? msg.referral : null,
    };
    return (r) => this.onTransfer(world, r, trade);
  }

  /** aidols.near's `ft_on_transfer`: the whole amount is traded (returns 0 unused) or the receipt fails. */
  private onTransfer(
    world: World,
    r: Receipt,
    t: { trader: string; token: string; tokenIn: string; tokenOut: string; amount: bigint; minOut: bigint; referral: string | null },
  ): bigint {
    const curve = this.curves.get(t.token);
    if (curve === undefined || !curve.state.isTradable) throw new Panic('Token is not tradable');
    const quote = quoteTrade(curve.state, t.tokenIn, t.tokenOut, t.amount);
    if (quote === null) throw new Panic('Swap amount does not cover the fee');
    if (quote.amountOut < t.minOut) throw new Panic(`Slippage: ${quote.amountOut} is less than min_swap_amount ${t.minOut}`);
    const before = { ...curve.state };
    const graduates = quote.amountsAfter[1]! >= GRADUATION_WNEAR_HOLD;
    curve.state = { ...curve.state, amounts: [...quote.amountsAfter], isDeployed: graduates, isTradable: !graduates };
    r.onRevert(() => (curve.state = before));
    writeCurve(r, curve);
    r.event('aidols', '1.0.0', 'token_swap', [
      {
        user_id: t.trader,
        input_token: t.tokenIn,
        input_amount: t.amount.toString(),
        output_token: t.tokenOut,
        output_amount: quote.amountOut.toString(),
        referral_id: t.referral,
        token_hold: String(curve.state.amounts[0]),
        wnear_hold: String(curve.state.amounts[1]),
        wnear_commission: quote.fee.toString(),
      },
    ]);
    world.tokens.payout(r, t.tokenOut, t.trader, quote.amountOut);
    // The referrer's share: 1% of the protocol fee, in wNEAR (spec).
    const referralFee = quote.fee / 100n;
    if (t.referral !== null && referralFee > 0n) world.tokens.payout(r, world.contracts.Wrap, t.referral, referralFee);
    recordTrade(world, r, { dex: 'Launch', poolId: t.token, trader: t.trader, tokenIn: t.tokenIn, tokenOut: t.tokenOut, amountIn: t.amount, amountOut: quote.amountOut });
    return 0n;
  }

  /** No referrer, another wallet (registered with wrap.near), or one whose share is lost. */
  private pickReferral(world: World, trader: string): string | null {
    const { rng, wallets } = world;
    switch (rng.int(3)) {
      case 0:
        return null;
      case 1: {
        const other = rng.pick(wallets);
        return other === trader ? null : other;
      }
      default:
        return UNREGISTERED_REFERRER;
    }
  }
}

/** The curve record as aidols.near stores it (what dexes/launch/decode.ts reads). */
function writeCurve(r: Receipt, { spec, state }: LaunchCurve): void {
  const key = new BorshWriter().u8(0x00).string(spec.contractId).bytes();
  const value = new BorshWriter()
    .u128(state.amounts[0]!)
    .u128(state.amounts[1]!)
    .u8(state.isDeployed ? 1 : 0)
    .u8(state.isTradable ? 1 : 0)
    .bytes();
  r.write(key, value);
}

/** A trade on the curve by the model's own math (launch-math.ts): null when the curve refuses it. */
function quoteTrade(state: LaunchPoolState, tokenIn: string, tokenOut: string, amountIn: bigint): { amountOut: bigint; fee: bigint; amountsAfter: bigint[] } | null {
  const [token, wnear] = state.tokens;
  const [tokenHold, wnearHold] = state.amounts;
  if (token === undefined || wnear === undefined || tokenHold === undefined || wnearHold === undefined) return null;
  if (state.isTradable === false || amountIn <= 0n || tokenHold <= 0n || wnearHold <= 0n) return null;
  let trade;
  if (tokenIn === wnear && tokenOut === token) trade = aidolsBuy(tokenHold, wnearHold, amountIn);
  else if (tokenIn === token && tokenOut === wnear) trade = aidolsSell(tokenHold, wnearHold, amountIn);
  else return null;
  return trade && { amountOut: trade.amountOut, fee: trade.fee, amountsAfter: [trade.tokenHold, trade.wnearHold] };
}

function minBig(...values: bigint[]): bigint {
  return values.reduce((a, b) => (b < a ? b : a));
}
