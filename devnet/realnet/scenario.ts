// A scripted market on the real contracts: Ref's exchange (any release), wNEAR (`w_near`), and two NEP-141 tokens,
// one of each log family (near-sdk 3.1's example logs `Transfer … from … to …`, 4.1's `EVENT_JSON` `ft_transfer`).
// Every step is a signed transaction whose receipts the contracts' own code executes (chain.ts); what it paid or
// refused is read off the receipts, never computed here. Pure apart from the wasm it is handed.
import type { RawJson } from '../../near/lake-json.ts';
import { Rng } from '../rng.ts';
import { RealnetChain } from './chain.ts';

export const REF = 'v2.ref-finance.near';
export const WRAP = 'wrap.near';
/** near-sdk 3.1's example token (legacy log lines). */
export const TOKEN_A = 'tkn-a.near';
/** near-sdk 4.1's example token (NEP-297 events). */
export const TOKEN_B = 'tkn-b.near';
export const OWNER = 'owner.near';
export const ALICE = 'alice.near';
export const BOB = 'bob.near';

const Y = 10n ** 24n;
const TGAS = 10n ** 12n;

export interface RefScenarioWasm {
  ref: Uint8Array;
  wNear: Uint8Array;
  ftSdk3: Uint8Array;
  ftSdk4: Uint8Array;
}

/** Where the steps of the script landed: the height each transaction was included at, and its hash. */
export interface Step {
  height: number;
  txHash: string;
}

export interface RefScenario {
  chain: RealnetChain;
  /** Every block's `{block, shards}` message, in height order. */
  blocks: RawJson[];
  /** After each block (by height): `get_pool` of every pool then, the contract's own view. */
  poolViews: Map<number, PoolView[]>;
  steps: {
    /** bob's instant swap of 1 TOKEN_A for wNEAR in pool 0 (actions msg through `ft_transfer_call`). */
    swap: Step;
    /** bob's two-hop swap TOKEN_B -> wNEAR -> TOKEN_A (pools 1 then 0). */
    twoHop: Step;
    /** bob's swap of TOKEN_B in pool 1 whose minimum no pool meets (E68): the tokens come back by the resolve. */
    slippage: Step;
    /** alice's `add_simple_pool` with 1 yocto attached: the exchange refuses it, the deposit comes back. */
    refused: Step;
    /** alice's `remove_liquidity` of a tenth of her pool 0 shares. */
    removeLiquidity: Step;
    /** alice's `withdraw` of 5 wNEAR from the exchange (its `ft_transfer` and callback). */
    withdraw: Step;
    /** alice's `near_withdraw` of 3 wNEAR (wrap.near's Transfer receipt to her). */
    unwrap: Step;
  };
}

export interface PoolView {
  pool_kind: string;
  token_account_ids: string[];
  amounts: string[];
  total_fee: number;
  shares_total_supply: string;
}

/**
 * The chain both Ref scripts run on: the exchange, wNEAR and the two NEP-141 examples deployed, the owner, alice and
 * bob given `balance` each, and `block()`, which produces the next block and keeps the exchange's pools as its own
 * views give them at that height.
 */
function refChain(wasm: RefScenarioWasm, chain: RealnetChain, balance: bigint) {
  const blocks: RawJson[] = [];
  const poolViews = new Map<number, PoolView[]>();
  chain.deploy(REF, wasm.ref, 100n * Y);
  chain.deploy(WRAP, wasm.wNear, 100n * Y);
  chain.deploy(TOKEN_A, wasm.ftSdk3, 100n * Y);
  chain.deploy(TOKEN_B, wasm.ftSdk4, 100n * Y);
  for (const user of [OWNER, ALICE, BOB]) chain.createAccount(user, balance);
  const block = (): number => {
    const height = chain.height;
    blocks.push(chain.produceBlock());
    // The exchange answers views once it is initialised (the first block's `new`).
    const pools = chain.view<number>(REF, 'get_number_of_pools');
    const views: PoolView[] = [];
    for (let id = 0; id < pools; id++) views.push(chain.view<PoolView>(REF, 'get_pool', { pool_id: id }));
    poolViews.set(height, views);
    return height;
  };
  return { blocks, poolViews, block };
}

export function refScenario(wasm: RefScenarioWasm, seed = 'realnet-ref'): RefScenario {
  const chain = new RealnetChain({ seed });
  const { blocks, poolViews, block } = refChain(wasm, chain, 10_000n * Y);
  /** Blocks until every receipt has run. */
  const settle = (): void => {
    do block();
    while (chain.pendingReceipts() > 0);
  };
  const step = (txHash: string): Step => ({ height: chain.height, txHash });

  // Init: the exchange with the arguments of its newest release (older ones ignore the fields they lack).
  chain.call(REF, REF, 'new', { owner_id: OWNER, boost_farm_id: 'boostfarm.ref-labs.near', burrowland_id: 'contract.main.burrow.near', exchange_fee: 1600, referral_fee: 400 });
  chain.call(WRAP, WRAP, 'new', {});
  chain.call(TOKEN_A, TOKEN_A, 'new_default_meta', { owner_id: ALICE, total_supply: (10n ** 30n).toString() });
  chain.call(TOKEN_B, TOKEN_B, 'new_default_meta', { owner_id: ALICE, total_supply: (10n ** 30n).toString() });
  settle();
  // Storage: every account on every token, alice and bob on the exchange; the tokens whitelisted.
  for (const token of [WRAP, TOKEN_A, TOKEN_B]) for (const account of [REF, ALICE, BOB]) chain.call(ALICE, token, 'storage_deposit', { account_id: account }, Y / 100n);
  for (const account of [ALICE, BOB]) chain.call(account, REF, 'storage_deposit', { account_id: account }, Y / 10n);
  chain.call(OWNER, REF, 'extend_whitelisted_tokens', { tokens: [WRAP, TOKEN_A, TOKEN_B] }, 1n);
  settle();
  // wNEAR for alice, tokens for bob.
  chain.call(ALICE, WRAP, 'near_deposit', {}, 1000n * Y);
  chain.call(ALICE, TOKEN_A, 'ft_transfer', { receiver_id: BOB, amount: (10n * Y).toString() }, 1n);
  chain.call(ALICE, TOKEN_B, 'ft_transfer', { receiver_id: BOB, amount: (10n * Y).toString() }, 1n);
  settle();
  // Deposits into the exchange, and two pools.
  for (const token of [WRAP, TOKEN_A, TOKEN_B]) chain.call(ALICE, token, 'ft_transfer_call', { receiver_id: REF, amount: (100n * Y).toString(), msg: '' }, 1n, 100n * TGAS);
  chain.call(ALICE, REF, 'add_simple_pool', { tokens: [WRAP, TOKEN_A], fee: 30 }, Y / 10n);
  chain.call(ALICE, REF, 'add_simple_pool', { tokens: [WRAP, TOKEN_B], fee: 25 }, Y / 10n);
  settle();
  chain.call(ALICE, REF, 'add_liquidity', { pool_id: 0, amounts: [(50n * Y).toString(), (40n * Y).toString()] }, Y / 100n);
  chain.call(ALICE, REF, 'add_liquidity', { pool_id: 1, amounts: [(50n * Y).toString(), (60n * Y).toString()] }, Y / 100n);
  settle();
  const refused = step(chain.call(ALICE, REF, 'add_simple_pool', { tokens: [TOKEN_A, TOKEN_B], fee: 30 }, 1n));
  settle();
  const swapMsg = { force: 0, actions: [{ pool_id: 0, token_in: TOKEN_A, token_out: WRAP, amount_in: Y.toString(), min_amount_out: '1' }] };
  const swap = step(chain.call(BOB, TOKEN_A, 'ft_transfer_call', { receiver_id: REF, amount: Y.toString(), msg: JSON.stringify(swapMsg) }, 1n, 150n * TGAS));
  settle();
  const twoHopMsg = {
    force: 0,
    actions: [
      { pool_id: 1, token_in: TOKEN_B, token_out: WRAP, amount_in: (2n * Y).toString(), min_amount_out: '0' },
      { pool_id: 0, token_in: WRAP, token_out: TOKEN_A, min_amount_out: '1' },
    ],
  };
  const twoHop = step(chain.call(BOB, TOKEN_B, 'ft_transfer_call', { receiver_id: REF, amount: (2n * Y).toString(), msg: JSON.stringify(twoHopMsg) }, 1n, 200n * TGAS));
  settle();
  const badMsg = { force: 0, actions: [{ pool_id: 1, token_in: TOKEN_B, token_out: WRAP, amount_in: Y.toString(), min_amount_out: (100n * Y).toString() }] };
  const slippage = step(chain.call(BOB, TOKEN_B, 'ft_transfer_call', { receiver_id: REF, amount: Y.toString(), msg: JSON.stringify(badMsg) }, 1n, 150n * TGAS));
  settle();
  // Alice takes some liquidity out, withdraws wNEAR from the exchange, and unwraps it.
  const removeLiquidity = step(chain.call(ALICE, REF, 'remove_liquidity', { pool_id: 0, shares: (10n ** 23n).toString(), min_amounts: ['1', '1'] }, 1n));
  settle();
  const withdraw = step(chain.call(ALICE, REF, 'withdraw', { token_id: WRAP, amount: (5n * Y).toString() }, 1n));
  settle();
  const unwrap = step(chain.call(ALICE, WRAP, 'near_withdraw', { amount: (3n * Y).toString() }, 1n));
  settle();
  return { chain, blocks, poolViews, steps: { swap, twoHop, slippage, refused, removeLiquidity, withdraw, unwrap } };
}

export interface StableView {
  token_account_ids: string[];
  decimals: number[];
  amounts: string[];
  c_amounts: string[];
  total_fee: number;
  shares_total_supply: string;
  amp: number;
}

export interface RefStableScenario {
  chain: RealnetChain;
  blocks: RawJson[];
  /** After each block: `get_stable_pool` of pool 0. */
  stableViews: Map<number, StableView>;
  steps: { addLiquidity: Step; swap: Step; removeLiquidity: Step; removeByTokens: Step };
}

/**
 * Ref's stable pool on the two example tokens: the owner's `add_stable_swap_pool` (amp 240, 5 bps), alice's
 * `add_stable_liquidity`, bob's instant swap through it, alice's `remove_liquidity` (by shares) and
 * `remove_liquidity_by_tokens`.
 */
export function refStableScenario(wasm: Pick<RefScenarioWasm, 'ref' | 'ftSdk3' | 'ftSdk4'>, seed = 'realnet-stable'): RefStableScenario {
  const chain = new RealnetChain({ seed });
  const blocks: RawJson[] = [];
  const stableViews = new Map<number, StableView>();
  chain.deploy(REF, wasm.ref, 100n * Y);
  chain.deploy(TOKEN_A, wasm.ftSdk3, 100n * Y);
  chain.deploy(TOKEN_B, wasm.ftSdk4, 100n * Y);
  for (const user of [OWNER, ALICE, BOB]) chain.createAccount(user, 10_000n * Y);
  const settle = (): void => {
    do {
      const height = chain.height;
      blocks.push(chain.produceBlock());
      if (chain.view<number>(REF, 'get_number_of_pools') > 0) stableViews.set(height, chain.view<StableView>(REF, 'get_stable_pool', { pool_id: 0 }));
    } while (chain.pendingReceipts() > 0);
  };
  const step = (txHash: string): Step => ({ height: chain.height, txHash });
  chain.call(REF, REF, 'new', { owner_id: OWNER, boost_farm_id: 'boostfarm.ref-labs.near', burrowland_id: 'contract.main.burrow.near', exchange_fee: 1600, referral_fee: 400 });
  chain.call(TOKEN_A, TOKEN_A, 'new_default_meta', { owner_id: ALICE, total_supply: (10n ** 30n).toString() });
  chain.call(TOKEN_B, TOKEN_B, 'new_default_meta', { owner_id: ALICE, total_supply: (10n ** 30n).toString() });
  settle();
  for (const token of [TOKEN_A, TOKEN_B]) for (const account of [REF, BOB]) chain.call(ALICE, token, 'storage_deposit', { account_id: account }, Y / 100n);
  for (const account of [ALICE, BOB]) chain.call(account, REF, 'storage_deposit', { account_id: account }, Y / 10n);
  chain.call(OWNER, REF, 'extend_whitelisted_tokens', { tokens: [TOKEN_A, TOKEN_B] }, 1n);
  chain.call(ALICE, TOKEN_A, 'ft_transfer', { receiver_id: BOB, amount: (10n * Y).toString() }, 1n);
  settle();
  for (const token of [TOKEN_A, TOKEN_B]) chain.call(ALICE, token, 'ft_transfer_call', { receiver_id: REF, amount: (1000n * Y).toString(), msg: '' }, 1n, 100n * TGAS);
  chain.call(OWNER, REF, 'add_stable_swap_pool', { tokens: [TOKEN_A, TOKEN_B], decimals: [24, 24], fee: 5, amp_factor: 240 }, Y / 10n);
  settle();
  const addLiquidity = step(chain.call(ALICE, REF, 'add_stable_liquidity', { pool_id: 0, amounts: [(100n * Y).toString(), (120n * Y).toString()], min_shares: '1' }, Y / 100n));
  settle();
  const msg = { force: 0, actions: [{ pool_id: 0, token_in: TOKEN_A, token_out: TOKEN_B, amount_in: (3n * Y).toString(), min_amount_out: '1' }] };
  const swap = step(chain.call(BOB, TOKEN_A, 'ft_transfer_call', { receiver_id: REF, amount: (3n * Y).toString(), msg: JSON.stringify(msg) }, 1n, 150n * TGAS));
  settle();
  const removeLiquidity = step(chain.call(ALICE, REF, 'remove_liquidity', { pool_id: 0, shares: (10n * 10n ** 18n).toString(), min_amounts: ['0', '0'] }, 1n));
  settle();
  const removeByTokens = step(chain.call(ALICE, REF, 'remove_liquidity_by_tokens', { pool_id: 0, amounts: [(5n * Y).toString(), (1n * Y).toString()], max_burn_shares: (100n * 10n ** 18n).toString() }, 1n));
  settle();
  return { chain, blocks, stableViews, steps: { addLiquidity, swap, removeLiquidity, removeByTokens } };
}
