// QuoteA (NEAR Intents, the verifier `contracts.QuoteA` = intents.near) on the devnet, and the solver's pricing,
// which the local relay (relay.ts) quotes with too.
//
// A user's swap is two transactions in one block, as on mainnet:
// 1. the deposit: `ft_transfer_call` of the input token to intents.near with msg "" (40 TGas); its `ft_on_transfer`
//    credits the user's balance inside the verifier and logs the NEP-245 `mt_mint` (memo "deposit");
// 2. the settlement: `execute_intents {signed: [user's intent, solver's intent]}` (NEP-413 payloads), submitted by
//    the solver `solver.devnet.near`. The verifier logs, in order: the user's `token_diff` (dip4 0.3.0: `{in: -X,
//    out: +Y}` with `fees_collected` of the paid token, 1 pip rounded up: near/intents token_diff.rs), the user's
//    `ft_withdraw` of Y, the solver's `token_diff` (`{in: +(X - fee), out: -Y'}`, Y' the smallest amount whose net
//    of its own fee is Y: the diffs' closure), `intents_executed` (dip4 0.3.1, as in the real settlement of
//    test/fixtures/truth/quote-a), then the NEP-245 `mt_burn` of Y (memo "withdraw"), which the verifier postpones to
//    the end of the receipt; it pays Y out with an `ft_transfer` receipt on the output token. Every line is a
//    NEP-297 event: the verifier's source logs nothing else.
// dexes/quote-a/decode.ts reads the two token_diff events: one swap each, the user's and the solver's, both recorded
// here. One settlement in twenty is priced one unit short on the solver's side: the verifier's closing invariant
// fails ("invariant violated") after both token_diff lines were logged, and the receipt fails with them.
//
// The solver prices from the devnet's AmmA pools: the best single simple pool for the pair (dexes/amm-a/math.ts),
// minus a 0.3 % spread, and settles from an inventory it deposited into the verifier at genesis (it declines a
// trade it cannot cover). Simplifications: signatures and public keys are deterministic stand-ins, an intent's hash
// is sha256 of its message and nonce (the verifier hashes the NEP-413 payload), no `add_public_key`. The field sets
// of `intents_executed` and `mt_burn` are the real settlement's (R), `ft_withdraw`'s the source's (S: near/intents
// `FtWithdraw` flattened with `account_id`, `intent_hash`); only token_diff is read.
import { createHash } from 'node:crypto';
import { base58Encode } from '../near/base58.ts';
import type { SimplePoolState } from '../dexes/amm-a/state.ts';
import { tokenDiffFee } from '../dexes/quote-a/math.ts';
import { Panic, type Chain, type Receipt } from './chain.ts';
import type { Tokens } from './tokens.ts';
import { recordTrade, type DevnetDex, type World } from './world.ts';
import { solverQuoteExactIn, SOLVER_SPREAD_BPS } from './relay.ts';

export { SOLVER_SPREAD_BPS, solverQuoteExactIn };

const TGAS = 10n ** 12n;

/** The devnet's only solver: it quotes on the relay and signs the other side of every fill. */
export const SOLVER_ACCOUNT = 'solver.devnet.near';
/** The verifier's protocol fee, as on mainnet: 1 pip (0.0001 %) of the paid side, rounded up. */
export const INTENTS_FEE_PIPS = 1;
const PIPS = 1_000_000n;
/** A fill's deadline: the relay's default quote lifetime. */
const DEADLINE_MS = 60_000;

/** What a settlement moves: the user's X for Y, and the solver's side of it. */
export interface Fill {
  user: string;
  tokenIn: string;
  tokenOut: string;
  amountIn: bigint;
  amountOut: bigint;
}

export class QuoteADevnet implements DevnetDex {
  readonly id = 'QuoteA' as const;
  /** Balances inside the verifier: account -> Intents token id (`nep141:<contract>`) -> amount. */
  private readonly ledger = new Map<string, Map<string, bigint>>();

  /** `ammA`: the model whose pools the solver prices from. */
  constructor(private readonly ammA: { readonly pools: readonly SimplePoolState[] }) {}

  genesis(world: World<Chain, Tokens>): void {
    const { tokens, treasury, contracts } = world;
    const intents = contracts.QuoteA;
    for (const token of this.quotedTokens()) {
      tokens.register(treasury, token, intents);
      tokens.register(treasury, token, SOLVER_ACCOUNT);
      // The solver's inventory: a tenth of the token's liquidity in the AmmA pools.
      let liquidity = 0n;
      for (const pool of this.ammA.pools) {
        const i = pool.tokens.indexOf(token);
        if (i !== -1) liquidity += pool.amounts[i]!;
      }
      const inventory = liquidity / 10n;
      tokens.send(treasury, token, SOLVER_ACCOUNT, inventory);
      this.deposit(world, SOLVER_ACCOUNT, token, inventory);
    }
  }

  act(world: World<Chain, Tokens>, trader: string): void {
    const { rng, tokens } = world;
    const pool = rng.pick(this.ammA.pools);
    const first = rng.int(2);
    const tokenIn = pool.tokens[first]!;
    const tokenOut = pool.tokens[1 - first]!;
    const balance = tokens.balance(tokenIn, trader);
    if (balance === 0n || !tokens.isRegistered(tokenOut, trader)) return;
    // Up to 2 % of the trader's balance and 0.5 % of the pool's input reserve, as AmmA's traders do.
    const cap = minBig(balance / 50n, pool.amounts[first]! / 200n);
    if (cap < 2n) return;
    const amountIn = rng.bigint(1n, cap);
    const quote = solverQuoteExactIn(this.ammA.pools, tokenIn, tokenOut, amountIn);
    if (quote === null) return;
    if (this.balanceOf(SOLVER_ACCOUNT, `nep141:${tokenOut}`) < solverPays(quote.amountOut)) return;
    const faulty = rng.chance(0.05);
    this.deposit(world, trader, tokenIn, amountIn);
    this.settle(world, { user: trader, tokenIn, tokenOut, amountIn, amountOut: quote.amountOut }, { faulty });
  }

  reserves(): Map<string, bigint[]> {
    return new Map();
  }

  /** A balance inside the verifier (`tokenId`: `nep141:<contract>`). */
  balanceOf(account: string, tokenId: string): bigint {
    return this.ledger.get(account)?.get(tokenId) ?? 0n;
  }

  /** The tokens the solver quotes: every token of an AmmA pool, in pool order. */
  quotedTokens(): string[] {
    return [...new Set(this.ammA.pools.flatMap((p) => p.tokens))];
  }

  /** `ft_transfer_call` of `amount` to the verifier with msg "": a deposit into `account`'s balance there. */
  deposit(world: World<Chain, Tokens>, account: string, token: string, amount: bigint): Receipt {
    return world.tokens.transferCall(account, token, world.contracts.QuoteA, amount, '', (r) => {
      this.snapshot(r);
      this.add(account, `nep141:${token}`, amount);
      r.event('nep245', '1.0.0', 'mt_mint', [{ owner_id: account, token_ids: [`nep141:${token}`], amounts: [amount.toString()], memo: 'deposit' }]);
      return 0n;
    }, 40n * TGAS);
  }

  /**
   * `execute_intents` of the user's `{in: -X, out: +Y}` plus a withdrawal of Y, and the solver's closing diff.
   * `faulty`: the solver's diff pays one unit short, and the verifier's invariant fails.
   */
  settle(world: World<Chain, Tokens>, fill: Fill, options: { faulty?: boolean } = {}): Receipt {
    const { chain, contracts } = world;
    const intents = contracts.QuoteA;
    const { user, tokenIn, tokenOut, amountIn, amountOut } = fill;
    const idIn = `nep141:${tokenIn}`;
    const idOut = `nep141:${tokenOut}`;
    const feeIn = tokenDiffFee(idIn, amountIn, INTENTS_FEE_PIPS);
    const solverIn = amountIn - feeIn;
    const solverOut = solverPays(amountOut) - (options.faulty ? 1n : 0n);
    const feeOut = tokenDiffFee(idOut, solverOut, INTENTS_FEE_PIPS);
    const deadline = new Date(chain.timestampMs + DEADLINE_MS).toISOString();
    const userIntents = [
      { intent: 'token_diff', diff: sortedDiff({ [idIn]: `-${amountIn}`, [idOut]: `${amountOut}` }) },
      { intent: 'ft_withdraw', token: tokenOut, receiver_id: user, amount: amountOut.toString() },
    ];
    const solverIntents = [{ intent: 'token_diff', diff: sortedDiff({ [idIn]: `${solverIn}`, [idOut]: `-${solverOut}` }) }];
    const userSigned = signedIntent(world, user, deadline, userIntents);
    const solverSigned = signedIntent(world, SOLVER_ACCOUNT, deadline, solverIntents);
    const call = { method: 'execute_intents', args: { signed: [userSigned.signed, solverSigned.signed] }, gas: 300n * TGAS };
    return chain.transact(SOLVER_ACCOUNT, intents, [call], (r) => {
      this.snapshot(r);
      // The user's token_diff, then its withdrawal of what it received.
      this.take(user, idIn, amountIn);
      this.add(user, idOut, amountOut);
      r.event('dip4', '0.3.0', 'token_diff', [
        { intent_hash: userSigned.hash, account_id: user, diff: userIntents[0]!.diff, fees_collected: { [idIn]: feeIn.toString() } },
      ]);
      recordTrade(world, r, { dex: 'QuoteA', poolId: null, trader: user, tokenIn, tokenOut, amountIn, amountOut });
      this.take(user, idOut, amountOut);
      r.event('dip4', '0.3.0', 'ft_withdraw', [
        { intent_hash: userSigned.hash, account_id: user, token: tokenOut, receiver_id: user, amount: amountOut.toString() },
      ]);
      // The solver's side: it receives the user's input less the fee and pays the output plus its own fee.
      this.add(SOLVER_ACCOUNT, idIn, solverIn);
      this.take(SOLVER_ACCOUNT, idOut, solverOut);
      r.event('dip4', '0.3.0', 'token_diff', [
        { intent_hash: solverSigned.hash, account_id: SOLVER_ACCOUNT, diff: solverIntents[0]!.diff, fees_collected: { [idOut]: feeOut.toString() } },
      ]);
      recordTrade(world, r, { dex: 'QuoteA', poolId: null, trader: SOLVER_ACCOUNT, tokenIn: tokenOut, tokenOut: tokenIn, amountIn: solverOut, amountOut: solverIn });
      const collector = `fees.${intents}`;
      this.add(collector, idIn, feeIn);
      this.add(collector, idOut, feeOut);
      // The closing check: every token's diffs and fees sum to zero.
      const unmatched = { [idIn]: -amountIn + solverIn + feeIn, [idOut]: amountOut - solverOut + feeOut };
      if (Object.values(unmatched).some((d) => d !== 0n)) {
        throw new Panic(`invariant violated: ${JSON.stringify(Object.fromEntries(Object.entries(unmatched).map(([t, d]) => [t, d.toString()])))}`);
      }
      r.event('dip4', '0.3.1', 'intents_executed', [
        { intent_hash: userSigned.hash, account_id: user, nonce: userSigned.signed.payload.nonce },
        { intent_hash: solverSigned.hash, account_id: SOLVER_ACCOUNT, nonce: solverSigned.signed.payload.nonce },
      ]);
      // The verifier postpones its NEP-245 burns to the end of the receipt (`PostponedMtBurnEvents`), as the real
      // settlement logs them.
      r.event('nep245', '1.0.0', 'mt_burn', [{ owner_id: user, token_ids: [idOut], amounts: [amountOut.toString()], memo: 'withdraw' }]);
      world.tokens.payout(r, tokenOut, user, amountOut);
    });
  }

  private add(account: string, tokenId: string, amount: bigint): void {
    let balances = this.ledger.get(account);
    if (!balances) this.ledger.set(account, (balances = new Map()));
    balances.set(tokenId, (balances.get(tokenId) ?? 0n) + amount);
  }

  private take(account: string, tokenId: string, amount: bigint): void {
    if (this.balanceOf(account, tokenId) < amount) throw new Panic('insufficient balance or overflow');
    this.add(account, tokenId, -amount);
  }

  /** Saves the verifier's balances before `r` changes them, restored if `r` fails. */
  private snapshot(r: Receipt): void {
    const saved = new Map([...this.ledger].map(([account, balances]) => [account, new Map(balances)]));
    r.onRevert(() => {
      this.ledger.clear();
      for (const [account, balances] of saved) this.ledger.set(account, balances);
    });
  }
}

/**
 * What the solver's diff must pay so that, net of the verifier's fee on it, the user gets `amountOut`: the smallest
 * Y' with Y' − ceil(Y'·pips / 10^6) = amountOut (the closure of near/intents `TokenDiff::closure_delta`). Y' minus its
 * fee grows by 0 or 1 per unit of Y', so such a Y' exists.
 */
export function solverPays(amountOut: bigint, feePips = INTENTS_FEE_PIPS): bigint {
  const pips = BigInt(feePips);
  const net = (y: bigint) => y - (y * pips + PIPS - 1n) / PIPS;
  let y = (amountOut * PIPS) / (PIPS - pips);
  while (net(y) < amountOut) y += 1n;
  while (y > 0n && net(y - 1n) >= amountOut) y -= 1n;
  return y;
}

/** A diff's keys in the verifier's order (a BTreeMap of token ids). */
function sortedDiff(diff: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(diff).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

interface SignedIntent {
  signed: { standard: 'nep413'; payload: { message: string; nonce: string; recipient: string }; public_key: string; signature: string };
  hash: string;
}

/** A NEP-413 signed payload of `signer`'s intents, with deterministic stand-ins for the key and the signature. */
function signedIntent(world: World<Chain, Tokens>, signer: string, deadline: string, intents: unknown[]): SignedIntent {
  const { chain, contracts } = world;
  const message = JSON.stringify({ signer_id: signer, deadline, intents });
  const nonce = createHash('sha256').update(chain.hash(`intent-nonce-${signer}-${message}`)).digest().toString('base64');
  const hash = base58Encode(createHash('sha256').update(message).update(nonce).digest());
  const key = base58Encode(createHash('sha256').update(`devnet-key-${signer}`).digest());
  const signature = base58Encode(Buffer.concat([createHash('sha256').update(`sig-1-${hash}`).digest(), createHash('sha256').update(`sig-2-${hash}`).digest()]));
  return {
    signed: { standard: 'nep413', payload: { message, nonce, recipient: contracts.QuoteA }, public_key: `ed25519:${key}`, signature: `ed25519:${signature}` },
    hash,
  };
}

function minBig(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
