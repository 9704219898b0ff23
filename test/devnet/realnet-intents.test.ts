// The NEAR Intents verifier 0.2.10 (`intents.near`, QuoteA) run by its own wasm on the realnet: init, deposits of the
// two example tokens through `ft_transfer_call`, the actors' ed25519 keys registered (`add_public_key`), and a fill
// settled by `execute_intents` with the user's and the solver's NEP-413 signed `token_diff` intents (real ed25519
// signatures, checked by the verifier through near/vm's ed25519_verify). decodeQuoteA reads the fill as the
// verifier's own balance changes (`mt_batch_balance_of`), a tampered signature is refused, nothing is undecoded.
import { describe, expect, it } from 'vitest';
import { MAINNET_CONTRACTS } from '../../dexes/contracts.ts';
import { decodeQuoteA } from '../../dexes/quote-a/decode.ts';
import { normalizeStreamerMessage, type Block } from '../../near/block.ts';
import { decodeBlock } from '../../near/decode.ts';
import { RealnetChain } from '../../devnet/realnet/chain.ts';
import { actorKey, signIntents } from '../../devnet/realnet/intents.ts';
import { vendoredWasm } from '../../devnet/realnet/wasm.ts';

const Y = 10n ** 24n;
const TGAS = 10n ** 12n;
const I = 'intents.near';
const A = 'tkn-a.near';
const B = 'tkn-b.near';
const ALICE = 'alice.near';
const SOLVER = 'solver.near';
const SEED = 'realnet-intents';
const NA = `nep141:${A}`;
const NB = `nep141:${B}`;

function setUp() {
  const chain = new RealnetChain({ seed: SEED });
  chain.deploy(I, vendoredWasm('defuse_0.2.10'), 100n * Y);
  chain.deploy(A, vendoredWasm('fungible_token_sdk3.1'), 100n * Y);
  chain.deploy(B, vendoredWasm('fungible_token_sdk4.1'), 100n * Y);
  for (const u of [ALICE, SOLVER]) chain.createAccount(u, 100n * Y);
  const blocks: Block[] = [];
  const settle = () => {
    do blocks.push(normalizeStreamerMessage(chain.produceBlock()));
    while (chain.pendingReceipts() > 0);
  };
  chain.call(I, I, 'new', { config: { wnear_id: 'wrap.near', fees: { fee: 0, fee_collector: I }, roles: { super_admins: [], admins: {}, grantees: {} } } });
  chain.call(A, A, 'new_default_meta', { owner_id: ALICE, total_supply: (10n ** 30n).toString() });
  chain.call(B, B, 'new_default_meta', { owner_id: SOLVER, total_supply: (10n ** 30n).toString() });
  settle();
  for (const [token, payer] of [[A, ALICE], [B, SOLVER]] as const) for (const u of [I, ALICE, SOLVER]) chain.call(payer, token, 'storage_deposit', { account_id: u }, Y / 100n);
  for (const u of [ALICE, SOLVER]) chain.call(u, I, 'add_public_key', { public_key: actorKey(SEED, u).publicKey }, 1n);
  settle();
  chain.call(ALICE, A, 'ft_transfer_call', { receiver_id: I, amount: (10n * Y).toString(), msg: '' }, 1n, 100n * TGAS);
  chain.call(SOLVER, B, 'ft_transfer_call', { receiver_id: I, amount: (100n * Y).toString(), msg: '' }, 1n, 100n * TGAS);
  settle();
  return { chain, blocks, settle };
}

const balances = (chain: RealnetChain, account: string) => chain.view<string[]>(I, 'mt_batch_balance_of', { account_id: account, token_ids: [NA, NB] }).map(BigInt);

describe('realnet: the intents verifier 0.2.10 settles signed intents', () => {
  it('a fill: both token_diff intents verified and executed; decodeQuoteA reads the balance changes; nothing undecoded', () => {
    const { chain, blocks, settle } = setUp();
    expect(chain.executed.filter((r) => 'Failure' in r.status)).toEqual([]);
    const before = { alice: balances(chain, ALICE), solver: balances(chain, SOLVER) };
    expect(before.alice).toEqual([10n * Y, 0n]);
    const deadline = '2026-01-01T01:00:00Z';
    const user = signIntents(actorKey(SEED, ALICE), ALICE, I, [{ intent: 'token_diff', diff: { [NA]: (-5n * Y).toString(), [NB]: (9n * Y).toString() } }], deadline, 'alice-1');
    const solver = signIntents(actorKey(SEED, SOLVER), SOLVER, I, [{ intent: 'token_diff', diff: { [NA]: (5n * Y).toString(), [NB]: (-9n * Y).toString() } }], deadline, 'solver-1');
    const from = blocks.length;
    chain.call(SOLVER, I, 'execute_intents', { signed: [user, solver] }, 0n, 200n * TGAS);
    settle();
    const settled = chain.executed.at(-1)!;
    expect(settled.status).toEqual({ SuccessValue: '' });
    const after = { alice: balances(chain, ALICE), solver: balances(chain, SOLVER) };
    expect(after.alice).toEqual([5n * Y, 9n * Y]);
    expect(after.solver).toEqual([5n * Y, 91n * Y]);

    const swaps = blocks.slice(from).flatMap((b) => decodeQuoteA(b, MAINNET_CONTRACTS));
    expect(swaps.map((e) => (e.kind === 'swap' ? [e.trader, e.tokenIn, e.tokenOut, e.amountIn, e.amountOut] : [e.kind]))).toEqual([
      [ALICE, A, B, before.alice[0]! - after.alice[0]!, after.alice[1]! - before.alice[1]!],
      [SOLVER, B, A, before.solver[1]! - after.solver[1]!, after.solver[0]! - before.solver[0]!],
    ]);
    const all = blocks.flatMap((b) => [...decodeQuoteA(b, MAINNET_CONTRACTS), ...decodeBlock(b)]);
    expect(all.filter((e) => e.kind === 'undecoded')).toEqual([]);
  });

  it('a signature that does not match its payload is refused by the verifier, and nothing moves', () => {
    const { chain, settle } = setUp();
    const deadline = '2026-01-01T01:00:00Z';
    const user = signIntents(actorKey(SEED, ALICE), ALICE, I, [{ intent: 'token_diff', diff: { [NA]: (-5n * Y).toString(), [NB]: (9n * Y).toString() } }], deadline, 'alice-1');
    const solver = signIntents(actorKey(SEED, SOLVER), SOLVER, I, [{ intent: 'token_diff', diff: { [NA]: (5n * Y).toString(), [NB]: (-9n * Y).toString() } }], deadline, 'solver-1');
    const forged = { ...user, payload: { ...user.payload, message: user.payload.message.replace('9000000', '9900000') } };
    chain.call(SOLVER, I, 'execute_intents', { signed: [forged, solver] }, 0n, 200n * TGAS);
    settle();
    const refused = chain.executed.at(-1)!;
    expect(JSON.stringify(refused.status)).toMatch(/signature/i);
    expect(balances(chain, ALICE)).toEqual([10n * Y, 0n]);
  });
});
