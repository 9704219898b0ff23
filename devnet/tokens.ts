// NEP-141 / NEP-145 token contracts as the devnet plays them: near-contract-standards tokens (NEP-297 `ft_transfer`,
// `ft_mint`, `ft_burn` events) and wNEAR, whose near-sdk 3 code logs plain text (`Transfer 5 from a to b`,
// `Deposit 5 NEAR to a`, `Withdraw 5 NEAR from a`, `Refund 5 from b to a`), as mainnet's `wrap.near` does.
import type { FtMetadata } from '../near/events.ts';
import { Panic, type Receipt } from './chain.ts';
import type { ModelChain } from './world.ts';

export interface TokenSpec extends Omit<FtMetadata, 'spec' | 'icon' | 'reference'> {
  contractId: string;
  /** Plain-text logs (wrap.near). */
  legacy?: boolean;
}

interface TokenState {
  spec: TokenSpec;
  balances: Map<string, bigint>;
}

/** NEP-148 metadata as an init call's `metadata` argument (what the indexer reads token metadata from) and as
 * `ft_metadata` answers. */
export function initMetadata(meta: { symbol: string; name: string; decimals: number }) {
  return { spec: 'ft-1.0.0', name: meta.name, symbol: meta.symbol, icon: null, reference: null, reference_hash: null, decimals: meta.decimals };
}

/** NEP-145 minimum the devnet tokens ask (0.00125 NEAR, as wrap.near does). */
export const STORAGE_DEPOSIT = 1_250_000_000_000_000_000_000n;
export const ONE_YOCTO = 1n;
const TGAS = 10n ** 12n;

/** The NEP-141 tokens as the models use them: the devnet's (`Tokens`), or real token contracts (realnet/hosted.ts). */
export interface TokenLedger {
  has(token: string): boolean;
  spec(token: string): TokenSpec;
  balance(token: string, account: string): bigint;
  isRegistered(token: string, account: string): boolean;
  deploy(spec: TokenSpec, owner: string, totalSupply: bigint): void;
  register(payer: string, token: string, account?: string): void;
  transfer(r: Receipt, from: string, to: string, amount: bigint, memo?: string): void;
  mint(r: Receipt, owner: string, amount: bigint, memo?: string): void;
  burn(r: Receipt, owner: string, amount: bigint, memo?: string): void;
  send(sender: string, token: string, receiver: string, amount: bigint): void;
  payout(r: Receipt, token: string, receiver: string, amount: bigint): void;
  transferCall(sender: string, token: string, receiver: string, amount: bigint, msg: string, onTransfer: (r: Receipt) => bigint, gas?: bigint): void;
}

export class Tokens implements TokenLedger {
  private readonly tokens = new Map<string, TokenState>();

  constructor(private readonly chain: ModelChain) {}

  has(token: string): boolean {
    return this.tokens.has(token);
  }

  spec(token: string): TokenSpec {
    return this.state(token).spec;
  }

  balance(token: string, account: string): bigint {
    return this.state(token).balances.get(account) ?? 0n;
  }

  isRegistered(token: string, account: string): boolean {
    return this.state(token).balances.has(account);
  }

  /** Every (token, account, balance) of registered accounts, sorted: what the indexer's balances must say. */
  allBalances(): Array<{ token: string; account: string; balance: bigint }> {
    const out: Array<{ token: string; account: string; balance: bigint }> = [];
    for (const [token, t] of this.tokens) for (const [account, balance] of t.balances) out.push({ token, account, balance });
    return out.sort((a, b) => (a.token < b.token ? -1 : a.token > b.token ? 1 : a.account < b.account ? -1 : a.account > b.account ? 1 : 0));
  }

  /** Deploys and initializes a token: `new {owner_id, total_supply, metadata}` mints the supply to the owner. */
  deploy(spec: TokenSpec, owner: string, totalSupply: bigint): void {
    const state: TokenState = { spec, balances: new Map() };
    this.tokens.set(spec.contractId, state);
    const args = spec.legacy ? {} : { owner_id: owner, total_supply: totalSupply.toString(), metadata: initMetadata(spec) };
    this.chain.transact(owner, spec.contractId, [{ method: 'new', args, gas: 100n * TGAS }], (r) => {
      state.balances.set(owner, 0n);
      if (!spec.legacy) this.mint(r, owner, totalSupply, 'new tokens are minted');
    });
  }

  /** `storage_deposit {account_id, registration_only: true}` paid by `payer`. */
  register(payer: string, token: string, account: string = payer): void {
    const args = { account_id: account, registration_only: true };
    this.chain.transact(payer, token, [{ method: 'storage_deposit', args, deposit: STORAGE_DEPOSIT, gas: 10n * TGAS }], (r) => this.storageDeposit(r, account));
  }

  // ---- inside a receipt the token contract executes ----

  /** NEP-145 `storage_deposit` of `account` (a second one changes nothing). */
  storageDeposit(r: Receipt, account: string): void {
    const balances = this.own(r).balances;
    if (balances.has(account)) return;
    balances.set(account, 0n);
    r.onRevert(() => balances.delete(account));
  }

  transfer(r: Receipt, from: string, to: string, amount: bigint, memo?: string): void {
    const t = this.own(r);
    if (amount <= 0n) throw new Panic('The amount should be a positive number');
    if (from === to) throw new Panic('Sender and receiver should be different');
    if (!t.balances.has(to)) throw new Panic(`The account ${to} is not registered`);
    const have = t.balances.get(from);
    if (have === undefined) throw new Panic(`The account ${from} is not registered`);
    if (have < amount) throw new Panic('The account doesn\'t have enough balance');
    this.add(r, t, from, -amount);
    this.add(r, t, to, amount);
    if (t.spec.legacy) {
      r.log(memo === 'refund' ? `Refund ${amount} from ${from} to ${to}` : `Transfer ${amount} from ${from} to ${to}`);
    } else {
      r.event('nep141', '1.0.0', 'ft_transfer', [{ old_owner_id: from, new_owner_id: to, amount: amount.toString(), ...(memo ? { memo } : {}) }]);
    }
  }

  mint(r: Receipt, owner: string, amount: bigint, memo?: string): void {
    const t = this.own(r);
    this.add(r, t, owner, amount);
    if (t.spec.legacy) r.log(`Deposit ${amount} NEAR to ${owner}`);
    else r.event('nep141', '1.0.0', 'ft_mint', [{ owner_id: owner, amount: amount.toString(), ...(memo ? { memo } : {}) }]);
  }

  burn(r: Receipt, owner: string, amount: bigint, memo?: string): void {
    const t = this.own(r);
    if ((t.balances.get(owner) ?? 0n) < amount) throw new Panic('The account doesn\'t have enough balance');
    this.add(r, t, owner, -amount);
    if (t.spec.legacy) r.log(`Withdraw ${amount} NEAR from ${owner}`);
    else r.event('nep141', '1.0.0', 'ft_burn', [{ owner_id: owner, amount: amount.toString(), ...(memo ? { memo } : {}) }]);
  }

  // ---- transactions ----

  /** `ft_transfer` signed by `sender`. */
  send(sender: string, token: string, receiver: string, amount: bigint): Receipt {
    const args = { receiver_id: receiver, amount: amount.toString() };
    return this.chain.transact(sender, token, [{ method: 'ft_transfer', args, deposit: ONE_YOCTO }], (r) => this.transfer(r, sender, receiver, amount));
  }

  /** A payout `ft_transfer` receipt from contract `r.receiverId` to `receiver`. */
  payout(r: Receipt, token: string, receiver: string, amount: bigint): Receipt {
    const args = { receiver_id: receiver, amount: amount.toString() };
    return r.call(token, { method: 'ft_transfer', args, deposit: ONE_YOCTO }, (t) => this.transfer(t, r.receiverId, receiver, amount));
  }

  /**
   * `ft_transfer_call` signed by `sender`: moves `amount` to `receiver`, calls its `ft_on_transfer`, whose handler
   * returns the unused amount, then `ft_resolve_transfer` refunds it (all of it when `ft_on_transfer` failed).
   */
  transferCall(
    sender: string,
    token: string,
    receiver: string,
    amount: bigint,
    msg: string,
    onTransfer: (r: Receipt) => bigint,
    gas = 300n * TGAS,
  ): Receipt {
    const args = { receiver_id: receiver, amount: amount.toString(), msg };
    return this.chain.transact(sender, token, [{ method: 'ft_transfer_call', args, deposit: ONE_YOCTO, gas }], (r) => {
      this.transfer(r, sender, receiver, amount);
      let unused = amount;
      // The receiver gets what is attached less the standard's GAS_FOR_FT_TRANSFER_CALL (30 TGas, resolve included).
      r.call(receiver, { method: 'ft_on_transfer', args: { sender_id: sender, amount: amount.toString(), msg }, gas: gas - 30n * TGAS }, (onT) => {
        unused = onTransfer(onT);
        return unused.toString();
      });
      r.call(token, { method: 'ft_resolve_transfer', args: { sender_id: sender, receiver_id: receiver, amount: amount.toString() }, gas: 5n * TGAS }, (res) => {
        if (unused > 0n) this.transfer(res, receiver, sender, unused, 'refund');
        return (amount - unused).toString();
      });
    });
  }

  private state(token: string): TokenState {
    const t = this.tokens.get(token);
    if (!t) throw new Error(`devnet: unknown token ${token}`);
    return t;
  }

  private own(r: Receipt): TokenState {
    return this.state(r.receiverId);
  }

  private add(r: Receipt, t: TokenState, account: string, delta: bigint): void {
    const before = t.balances.get(account);
    t.balances.set(account, (before ?? 0n) + delta);
    r.onRevert(() => (before === undefined ? t.balances.delete(account) : t.balances.set(account, before)));
  }
}
