// The devnet's models of the contracts whose code is not public (AmmDclA, AmmC, Launch, StakeA-D), hosted on the
// realnet beside the real ones: each model's account is a `HostedContract` of the chain, its NEAR and storage the
// chain's, and every token it moves that is not its own (wNEAR, USDt, USDC, REF, RHEA, SLIME, the aidols tokens) is
// a real NEP-141 contract, moved by the token's own `ft_transfer` / `ft_transfer_call` code. A staked token is its
// staking contract, so it stays the model's (devnet/tokens.ts on the hosted receipts).
//
// Modelled, not nearcore's: the models were written for a chain that runs a transaction whole, so a model's
// transaction runs to its end in its block (`RealnetChain.transactNow`), real tokens' receipts and callbacks
// included, before the block's other transactions; a hosted receipt burns a flat gas.
import type { RawJson } from '../../near/lake-json.ts';
import type { Action as VmAction } from '../../near/vm/runtime.ts';
import { MAINNET_CONTRACTS, type DexContracts } from '../../dexes/contracts.ts';
import { AmmCDevnet, type AmmCPoolSpec } from '../amm-c.ts';
import { AmmDclADevnet, devnetDclPools } from '../amm-dcl-a.ts';
import { Panic, Receipt, type Call, type Handler, type ReceiptHost } from '../chain.ts';
import { Arbitrage } from '../arbitrage.ts';
import { LaunchDevnet } from '../launch.ts';
import { Rng } from '../rng.ts';
import type { RpcViewAnswer } from '../rpc.ts';
import { StakeADevnet } from '../stake-a.ts';
import { StakeBDevnet } from '../stake-b.ts';
import { StakeCDevnet } from '../stake-c.ts';
import { StakeDDevnet } from '../stake-d.ts';
import { initMetadata, Tokens, type TokenLedger, type TokenSpec } from '../tokens.ts';
import type { DevnetDex, ModelChain, TruthTrade, World } from '../world.ts';
import type { ChainReceipt, HostedCall, HostedContract, HostedResult, RealnetChain, TxAction } from './chain.ts';
import { REF_TOKEN, USDC, USDT } from './market.ts';

/** The token of AmmC's launch pool: deployed by that model, its whole supply in the pool. */
export const SLIME: TokenSpec = { contractId: 'slime.tkn.near', symbol: 'SLIME', name: 'Slime', decimals: 18 };
/** Aidols tokens, launched by the Launch model at its genesis. */
export const AIDOLS: readonly TokenSpec[] = [
  { contractId: 'tganza.aidols.near', symbol: 'TGANZA', name: 'Tganza', decimals: 24 },
  { contractId: 'lumen.aidols.near', symbol: 'LUMEN', name: 'Lumen', decimals: 24 },
  { contractId: 'miko.aidols.near', symbol: 'MIKO', name: 'Miko the Cat', decimals: 24 },
];

/** The lines the models' trickle logs: one per contract whose decoder reports what it cannot read. */
export function unknownFormatLines(contracts: DexContracts): Array<{ contractId: string; line: string }> {
  const event = (standard: string, name: string, data: unknown) => `EVENT_JSON:${JSON.stringify({ standard, version: '9.0.0', event: name, data })}`;
  return [
    { contractId: contracts.AmmDclA, line: event('dcl.ref', 'pool_paused', [{ pool_id: 'x|y|2000', duration_sec: 600 }]) },
    { contractId: contracts.AmmC, line: event('inteardex', 'fee_switch_toggled', { dex_id: contracts.AmmCXykDexId, enabled: true }) },
    { contractId: contracts.Launch, line: event('aidols', 'curve_paused', [{ token_id: 'x.aidols.near' }]) },
    { contractId: contracts.StakeA, line: 'Epoch rebalance postponed: 3 validators unreachable' },
  ];
}

/** AmmC's genesis pools. */
export const AMM_C_POOLS: AmmCPoolSpec[] = [
  { type: 'public', tokens: ['near', USDT], liquidity: [100_000n, 500_000n], poolFee: 2_000 },
  { type: 'public', tokens: ['near', REF_TOKEN], liquidity: [20_000n, 1_000_000n], poolFee: 3_000 },
  { type: 'private', tokens: [USDT, USDC], liquidity: [200_000n, 200_000n], poolFee: 100 },
  // A launch pool: 300 NEAR of phantom liquidity (v1's) against SLIME's whole supply.
  { type: 'launch', tokens: ['near', SLIME.contractId], liquidity: [300n, 1_000_000_000n], poolFee: 5_000, communityFee: 2_000, launched: SLIME },
];

const Y = 10n ** 24n;
const TGAS = 10n ** 12n;
/** NEAR each model's account holds when it first appears (it pays unstakes and NEAR swaps out of it). */
const MODEL_ACCOUNT_NEAR = 10_000_000n * Y;
const encoder = new TextEncoder();

/** The realnet as the models' chain, and the one `HostedContract` that plays every model's account. */
class HostedChain implements ModelChain, ReceiptHost, HostedContract {
  readonly blockMs = 1000;
  /** The receipt a model's `ft_on_transfer` runs, set while a real token's `ft_transfer_call` to it runs. */
  onTransfer: { token: string; receiver: string; handler: Handler } | null = null;
  /** The first model receipt each transaction ran (what `transact` returns). */
  private readonly first = new Map<string, Receipt>();
  /** What a receipt without a handler of its own runs (a user's call to a model's contract), if the model takes it. */
  entry: ((receipt: ChainReceipt, method: string, args: Record<string, unknown>, deposit: bigint) => Handler | undefined) | null = null;
  /** Now and then a model's successful receipt logs one more line, in a format no decoder knows (see `HostedModels`). */
  trickle: { rng: Rng; lines: Map<string, string[]> } | null = null;

  /** What the models keep in JavaScript (set by `HostedModels`): what `save` puts back, with this object's own. */
  state: unknown[] = [];

  constructor(readonly realnet: RealnetChain) {}

  /** The models' state now (RealnetChain.save calls it beside the chain's): the chain itself is left to its own. */
  save(): () => void {
    return snapshot([this, ...this.state], (o) => o === this.realnet);
  }

  get height(): number {
    return this.realnet.height;
  }

  get timestampMs(): number {
    return this.realnet.timestampMs;
  }

  /** An account the models use that does not exist yet is a model's (its contract, its operator, ...). */
  ensure(id: string): void {
    if (!this.realnet.hasAccount(id)) this.realnet.host(id, this, MODEL_ACCOUNT_NEAR);
  }

  /** A transaction run to its end now; `handler` is what the receiver, a model, runs. Returns the first model
   * receipt it ran, if any. */
  now(signerId: string, receiverId: string, actions: TxAction[], handler?: Handler): Receipt | undefined {
    this.ensure(signerId);
    this.ensure(receiverId);
    const txHash = this.realnet.transactNow(signerId, receiverId, actions, handler);
    const first = this.first.get(txHash);
    this.first.delete(txHash);
    return first;
  }

  transact(signerId: string, receiverId: string, calls: Call[], handler: Handler): Receipt {
    const r = this.now(signerId, receiverId, calls.map(txAction), handler);
    if (r === undefined) throw new Error(`realnet: ${receiverId} ran no model receipt for ${calls.map((c) => c.method).join(', ')}`);
    return r;
  }

  newReceipt(txHash: string, signerId: string, predecessorId: string, receiverId: string, actions: RawJson[], handler: Handler): Receipt {
    return new Receipt(this, '', txHash, signerId, predecessorId, receiverId, actions, handler);
  }

  /** A user's receipt taken by method (`entry`): its calls in order, the last one's value returned; or the first
   * method the model does not take. */
  private entries(receipt: ChainReceipt, calls: Array<Extract<VmAction, { kind: 'FunctionCall' }>>): Handler | string {
    const handlers: Handler[] = [];
    for (const call of calls) {
      const handler = this.entry?.(receipt, call.method, callArgs(call), call.deposit);
      if (handler === undefined) return call.method;
      handlers.push(handler);
    }
    if (handlers.length === 0) return '';
    return (r) => handlers.reduce<unknown>((_, handler) => handler(r), undefined);
  }

  run({ receipt, balance }: HostedCall): HostedResult {
    const calls = receipt.actions.filter((a) => a.kind === 'FunctionCall');
    const method = calls[0]?.method ?? '';
    const pending = this.onTransfer;
    const handler =
      (receipt.handler as Handler | undefined) ??
      (method === 'ft_on_transfer' && pending !== null && pending.token === receipt.predecessorId && pending.receiver === receipt.receiverId ? pending.handler : undefined) ??
      this.entries(receipt, calls);
    const empty = new Uint8Array(0);
    if (typeof handler === 'string') return { logs: [], error: `${receipt.receiverId} (modelled) has no method ${handler} here`, writes: [], receipts: [], value: empty };
    const r = new Receipt(this, receipt.id, receipt.txHash, receipt.signerId, receipt.predecessorId, receipt.receiverId, [], handler);
    if (!this.first.has(receipt.txHash)) this.first.set(receipt.txHash, r);
    try {
      const value = handler(r);
      const receipts = r.created.map((c) => ({ receiverId: c.receiverId, actions: c.actions.map(vmAction), handler: c.handler }));
      const spent = receipts.reduce((sum, c) => sum + c.actions.reduce((s, a) => s + (a.kind === 'FunctionCall' || a.kind === 'Transfer' ? a.deposit : 0n), 0n), 0n);
      if (spent > balance) throw new Panic(`The account ${receipt.receiverId} cannot pay ${spent} yoctoNEAR`);
      const bytes = value === undefined ? empty : encoder.encode(JSON.stringify(typeof value === 'bigint' ? value.toString() : value));
      const unknown = this.trickle?.lines.get(receipt.receiverId);
      if (unknown !== undefined && this.trickle!.rng.chance(1 / 40)) r.log(this.trickle!.rng.pick(unknown));
      return { logs: r.logs, error: null, writes: r.writes, receipts, value: bytes };
    } catch (error) {
      if (!(error instanceof Panic)) throw error;
      const logs = [...r.logs];
      r.revert();
      return { logs, error: error.message, writes: [], receipts: [], value: empty };
    }
  }
}

/**
 * Everything reachable from `roots` as it is now, to put back in place: each object's own fields, each Map's and
 * Set's entries, each array's items, recorded shallowly per object (the objects they hold are recorded in turn), so
 * a restore gives the same objects back their contents, whoever holds them, and drops what was added since. Not
 * entered: `skip` objects, functions (a model's handlers keep no state of their own) and byte arrays (values the
 * models replace, never change in place).
 */
function snapshot(roots: readonly unknown[], skip: (o: object) => boolean): () => void {
  const restores: Array<() => void> = [];
  const seen = new Set<object>();
  const todo: unknown[] = [...roots];
  while (todo.length) {
    const o = todo.pop();
    if (typeof o !== 'object' || o === null || seen.has(o) || skip(o) || ArrayBuffer.isView(o)) continue;
    seen.add(o);
    if (o instanceof Map) {
      const entries = [...o];
      for (const [k, v] of entries) todo.push(k, v);
      restores.push(() => {
        o.clear();
        for (const [k, v] of entries) o.set(k, v);
      });
    } else if (o instanceof Set) {
      const items = [...o];
      for (const v of items) todo.push(v);
      restores.push(() => {
        o.clear();
        for (const v of items) o.add(v);
      });
    } else if (Array.isArray(o)) {
      const items = [...o];
      for (const v of items) todo.push(v);
      restores.push(() => {
        o.length = items.length;
        items.forEach((v, i) => (o[i] = v));
      });
    } else {
      const fields = Object.entries(o);
      for (const [, v] of fields) todo.push(v);
      // A frozen object cannot have changed.
      if (Object.isFrozen(o)) continue;
      const record = o as Record<string, unknown>;
      const keys = new Set(fields.map(([k]) => k));
      restores.push(() => {
        for (const key of Object.keys(record)) if (!keys.has(key)) delete record[key];
        for (const [k, v] of fields) record[k] = v;
      });
    }
  }
  return () => {
    for (const restore of restores) restore();
  };
}

/** A call's JSON arguments (none, or not an object: {}). */
function callArgs(a: Extract<VmAction, { kind: 'FunctionCall' }>): Record<string, unknown> {
  try {
    const args = JSON.parse(new TextDecoder().decode(a.args)) as unknown;
    return args !== null && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function txAction(call: Call): TxAction {
  return { kind: 'FunctionCall', method: call.method, args: call.args, deposit: call.deposit ?? 0n, gas: call.gas ?? 30n * TGAS };
}

/** A model's receipt action (Lake JSON, chain.ts) as the chain runs it. */
function vmAction(raw: RawJson): VmAction {
  const a = raw as { FunctionCall?: { method_name: string; args: string; gas: number; deposit: string }; Transfer?: { deposit: string } };
  if (a.Transfer) return { kind: 'Transfer', deposit: BigInt(a.Transfer.deposit) };
  const f = a.FunctionCall!;
  return { kind: 'FunctionCall', method: f.method_name, args: new Uint8Array(Buffer.from(f.args, 'base64')), deposit: BigInt(f.deposit), gas: BigInt(f.gas), gasWeight: 0n };
}

/**
 * The tokens as the models see them: real NEP-141 contracts (the market's, and those a model deploys: near-sdk 4.1's
 * example), run by their own code; a model's own token (`modelled`) is the devnet's `Tokens` on the hosted receipts.
 */
class HostedTokens implements TokenLedger {
  private readonly own: Tokens;
  private readonly specs = new Map<string, TokenSpec>();

  constructor(
    private readonly chain: HostedChain,
    private readonly ftWasm: Uint8Array,
    /** Tokens that are their model's own contract (the staked tokens). */
    private readonly modelled: ReadonlySet<string>,
    real: readonly TokenSpec[],
  ) {
    this.own = new Tokens(chain);
    for (const spec of real) this.specs.set(spec.contractId, spec);
  }

  /** A token that is its model's own contract, deployed. */
  isModelled(token: string): boolean {
    return this.own.has(token);
  }

  private isReal(token: string): boolean {
    return this.specs.has(token);
  }

  has(token: string): boolean {
    return this.isReal(token) || this.own.has(token);
  }

  spec(token: string): TokenSpec {
    return this.specs.get(token) ?? this.own.spec(token);
  }

  balance(token: string, account: string): bigint {
    if (!this.isReal(token)) return this.own.balance(token, account);
    return BigInt(this.chain.realnet.view<string>(token, 'ft_balance_of', { account_id: account }));
  }

  isRegistered(token: string, account: string): boolean {
    if (!this.isReal(token)) return this.own.isRegistered(token, account);
    return this.chain.realnet.view<unknown>(token, 'storage_balance_of', { account_id: account }) !== null;
  }

  deploy(spec: TokenSpec, owner: string, totalSupply: bigint): void {
    if (this.modelled.has(spec.contractId)) return this.own.deploy(spec, owner, totalSupply);
    this.chain.ensure(owner);
    this.chain.realnet.deploy(spec.contractId, this.ftWasm, 100n * Y);
    this.specs.set(spec.contractId, spec);
    const args = { owner_id: owner, total_supply: totalSupply.toString(), metadata: initMetadata(spec) };
    this.chain.now(owner, spec.contractId, [{ kind: 'FunctionCall', method: 'new', args, gas: 100n * TGAS }]);
  }

  /** A user's `storage_deposit` on a modelled token (a route registering its output). */
  entry(token: string, method: string, args: Record<string, unknown>, predecessorId: string): Handler | undefined {
    if (method !== 'storage_deposit' || !this.own.has(token)) return undefined;
    const account = typeof args.account_id === 'string' ? args.account_id : predecessorId;
    return (r) => this.own.storageDeposit(r, account);
  }

  register(payer: string, token: string, account: string = payer): void {
    if (!this.isReal(token)) return this.own.register(payer, token, account);
    this.chain.ensure(account);
    const args = { account_id: account, registration_only: true };
    this.chain.now(payer, token, [{ kind: 'FunctionCall', method: 'storage_deposit', args, deposit: Y / 100n, gas: 10n * TGAS }]);
  }

  transfer(r: Receipt, from: string, to: string, amount: bigint, memo?: string): void {
    this.own.transfer(r, from, to, amount, memo);
  }

  mint(r: Receipt, owner: string, amount: bigint, memo?: string): void {
    this.own.mint(r, owner, amount, memo);
  }

  burn(r: Receipt, owner: string, amount: bigint, memo?: string): void {
    this.own.burn(r, owner, amount, memo);
  }

  send(sender: string, token: string, receiver: string, amount: bigint): void {
    if (!this.isReal(token)) {
      this.own.send(sender, token, receiver, amount);
      return;
    }
    this.chain.now(sender, token, [{ kind: 'FunctionCall', method: 'ft_transfer', args: { receiver_id: receiver, amount: amount.toString() }, deposit: 1n, gas: 10n * TGAS }]);
  }

  payout(r: Receipt, token: string, receiver: string, amount: bigint): void {
    if (!this.isReal(token)) {
      this.own.payout(r, token, receiver, amount);
      return;
    }
    r.call(token, { method: 'ft_transfer', args: { receiver_id: receiver, amount: amount.toString() }, deposit: 1n, gas: 10n * TGAS }, () => undefined);
  }

  transferCall(sender: string, token: string, receiver: string, amount: bigint, msg: string, onTransfer: (r: Receipt) => bigint, gas = 300n * TGAS): void {
    if (!this.isReal(token)) {
      this.own.transferCall(sender, token, receiver, amount, msg, onTransfer, gas);
      return;
    }
    const before = this.chain.onTransfer;
    this.chain.onTransfer = { token, receiver, handler: onTransfer };
    try {
      const args = { receiver_id: receiver, amount: amount.toString(), msg };
      this.chain.now(sender, token, [{ kind: 'FunctionCall', method: 'ft_transfer_call', args, deposit: 1n, gas }]);
    } finally {
      this.chain.onTransfer = before;
    }
  }
}

/** The real tokens the models trade, as the market deploys them, and the market's prices. */
export interface HostedMarket {
  wrap: string;
  usdt: string;
  usdc: string;
  ref: string;
  /** The account holding their supply. */
  treasury: string;
  /** USD per whole token now, as Ref's pools price them: what the arbitrage keeps AmmC's pools at. */
  prices(): Record<string, number>;
}

export interface HostedModelsOptions {
  seed: string;
  /** Keep every hop the models executed in `trades` (tests). */
  recordTrades?: boolean;
  /** The trickle of lines in unknown formats on the models' receipts (default on). */
  trickle?: boolean;
  /** The arbitrage trader (default on). */
  arbitrage?: boolean;
  contracts?: DexContracts;
}

/** The models' wallets: not the market's actors (so neither sizes its actions off a balance the other moves). */
const WALLETS = ['erin', 'frank', 'grace', 'heidi', 'ivan', 'judy', 'mallory', 'niaj', 'olivia', 'peggy', 'rupert', 'sybil', 'trent', 'victor', 'walter', 'yolanda'].map((n) => `${n}.near`);
/** Deploys the models' tokens and seeds their pools. */
const MODEL_TREASURY = 'dexlake-devnet.near';

/**
 * The models of AmmDclA, AmmC, Launch and StakeA-D on the realnet: set up once, then 0-3 actions a block, then the
 * arbitrage trader (devnet/arbitrage.ts) bringing AmmC's constant-product pools back to Ref's prices when they stray
 * more than 1%. About one successful model receipt in 40 logs a line in a format no decoder knows (the formats of
 * `unknownFormatLines` for the modelled contracts), so the undecoded path runs on the default chain; the real
 * contracts' logs are never touched.
 */
export class HostedModels {
  readonly world: World<HostedChain, HostedTokens>;
  readonly dexes: DevnetDex[];
  readonly arbitrage: Arbitrage | null;
  private readonly real: HostedMarket;

  constructor(realnet: RealnetChain, ftWasm: Uint8Array, real: HostedMarket, options: HostedModelsOptions) {
    const contracts = options.contracts ?? MAINNET_CONTRACTS;
    const chain = new HostedChain(realnet);
    const realTokens = [
      { contractId: real.wrap, symbol: 'wNEAR', name: 'Wrapped NEAR fungible token', decimals: 24 },
      { contractId: real.usdt, symbol: 'USDt', name: 'Tether USD', decimals: 6 },
      { contractId: real.usdc, symbol: 'USDC', name: 'USD Coin', decimals: 6 },
      { contractId: real.ref, symbol: 'REF', name: 'Ref Finance Token', decimals: 18 },
    ];
    const modelled = new Set([contracts.StakeA, contracts.StakeB, contracts.StakeC, contracts.StakeD]);
    const tokens = new HostedTokens(chain, ftWasm, modelled, realTokens);
    this.real = real;
    this.world = { chain, tokens, rng: new Rng(`${options.seed}|models`), contracts, treasury: MODEL_TREASURY, wallets: WALLETS, trades: options.recordTrades ? [] : null };
    const ammC = new AmmCDevnet(AMM_C_POOLS);
    this.dexes = [
      new AmmDclADevnet(devnetDclPools({ wnear: real.wrap, usdt: real.usdt, usdc: real.usdc, ref: real.ref })),
      ammC,
      new LaunchDevnet(AIDOLS),
      new StakeADevnet(),
      new StakeBDevnet(),
      new StakeCDevnet(),
      new StakeDDevnet(),
    ];
    const wrap = (_world: World, account: string, amount: bigint) => this.wrap(account, amount);
    this.arbitrage = options.arbitrage === false ? null : new Arbitrage({ wrap, ammC, prices: () => real.prices() });
    chain.entry = (receipt, method, args, deposit) => {
      const registration = tokens.entry(receipt.receiverId, method, args, receipt.predecessorId);
      if (registration !== undefined) return registration;
      for (const dex of this.dexes) {
        const handler = dex.entry?.(this.world, receipt.receiverId, method, args, receipt.predecessorId, deposit);
        if (handler !== undefined) return handler;
      }
      return undefined;
    };
    if (options.trickle ?? true) {
      const modelContracts = new Set(this.dexes.map((d) => contracts[d.id as keyof DexContracts]));
      const lines = new Map<string, string[]>();
      for (const { contractId, line } of unknownFormatLines(contracts)) if (modelContracts.has(contractId)) lines.set(contractId, [...(lines.get(contractId) ?? []), line]);
      chain.trickle = { rng: new Rng(`${options.seed}|unknown-formats`), lines };
    }
    chain.state = [this.world, this.dexes, this.arbitrage];
  }

  /** `near_deposit` of `amount` by `account`, registered first: wrap.near's `near_deposit` charges an unregistered
   * account its storage (0.00125 NEAR) out of the deposit, and logs only what it wrapped. */
  private wrap(account: string, amount: bigint): void {
    const { chain, tokens } = this.world;
    chain.ensure(account);
    if (!tokens.isRegistered(this.real.wrap, account)) tokens.register(account, this.real.wrap);
    chain.now(account, this.real.wrap, [{ kind: 'FunctionCall', method: 'near_deposit', args: {}, deposit: amount, gas: 10n * TGAS }]);
  }

  get trades(): TruthTrade[] {
    return this.world.trades ?? [];
  }

  /** The accounts, their tokens (from the market's treasury, wNEAR wrapped), and each model's genesis. */
  setup(): void {
    const { chain, tokens, rng } = this.world;
    const { realnet } = chain;
    realnet.createAccount(MODEL_TREASURY, 100_000_000n * Y);
    for (const wallet of WALLETS) realnet.createAccount(wallet, 1_000_000n * Y);
    const fungible = [this.real.usdt, this.real.usdc, this.real.ref];
    for (const token of [this.real.wrap, ...fungible]) for (const account of [MODEL_TREASURY, ...WALLETS]) tokens.register(account, token);
    this.wrap(MODEL_TREASURY, 5_000_000n * Y);
    for (const token of fungible) tokens.send(this.real.treasury, token, MODEL_TREASURY, 1_000_000_000n * 10n ** BigInt(tokens.spec(token).decimals));
    for (const dex of this.dexes) dex.genesis(this.world);
    for (const wallet of WALLETS) {
      this.wrap(wallet, rng.bigint(100n, 2_000n) * Y);
      for (const token of fungible) tokens.send(MODEL_TREASURY, token, wallet, rng.bigint(1_000n, 50_000n) * 10n ** BigInt(tokens.spec(token).decimals));
    }
    this.arbitrage?.genesis(this.world);
  }

  /** 0-3 actions, each on a model picked at random by a wallet picked at random. */
  act(): void {
    const { rng, wallets } = this.world;
    const actions = rng.int(4);
    for (let i = 0; i < actions; i++) rng.pick(this.dexes).act(this.world, rng.pick(wallets));
    this.arbitrage?.step(this.world);
  }

  /** A view of a model's contract, as the model answers it (its `view`, or a modelled token's `ft_metadata`). */
  view(contractId: string, method: string, args: Record<string, unknown>): RpcViewAnswer | undefined {
    for (const dex of this.dexes) {
      const answer = dex.view?.(this.world, contractId, method, args);
      if (answer !== undefined) return answer;
    }
    const { tokens } = this.world;
    if (tokens.isModelled(contractId)) {
      const spec = tokens.spec(contractId);
      if (method === 'ft_metadata') return { value: initMetadata(spec) };
      if (method === 'ft_balance_of' && typeof args.account_id === 'string') return { value: tokens.balance(contractId, args.account_id).toString() };
    }
    return undefined;
  }

  /** The models' account ids, for a caller's reference (each is a hosted account of the chain). */
  static readonly WALLETS = WALLETS;
  static readonly TREASURY = MODEL_TREASURY;
}
