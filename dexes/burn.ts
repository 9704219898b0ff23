// What a call's receipts are expected to burn, all of them together: the basis every DEX's `estimated_gas_usage`
// and its ranking stand on (the attached gas is only what a call may use; what it leaves unused is refunded). Two
// kinds of figure, by what is public:
// - metered: the contract's own release wasm run in near/vm at protocol 90 (near/vm/README.md): the token side of
//   every call (wrap.near's w_near, near-sdk's fungible token) and Ref's exchange (amm-a/instructions.ts);
// - envelope: where the contract's code is not public (or not vendored), the largest `gas_burnt` of comparable real
//   receipts in the mainnet fixture blocks (test/fixtures/blocks), rounded up to 0.1 TGas, named below.
// test/routing/gas-burn.test.ts measures every figure again, from the wasm and from the blocks. Pure.
const GGAS = 1_000_000_000n;

// ---- metered (near/vm) ----
/** A token's `ft_transfer_call` (it keeps 30 TGas, hands the rest on): 3.5 TGas, AmmA's budget for it (near/vm
 * meters 2.6-2.7 TGas for wrap.near's and near-sdk 4.1's with a swap's msg of up to three actions; a longer msg or
 * token id costs a little more). */
export const TOKEN_TRANSFER_CALL_BURN = 3_500n * GGAS;
/** The token's `ft_resolve_transfer` after it: 1.4 TGas (near-sdk 4.1's metered at 1.37, wrap.near's at 1.34). */
export const TOKEN_RESOLVE_BURN = 1_400n * GGAS;
/** A token's `ft_transfer` paying an output out: 1.9 TGas (near-sdk 4.1's metered at 1.81 in a Ref swap). */
export const TOKEN_TRANSFER_BURN = 1_900n * GGAS;
/** wNEAR `near_deposit`: w_near metered at 1.58 TGas for a registered account, 1.65 for one it registers. */
export const NEAR_DEPOSIT_BURN = 1_700n * GGAS;
/** wNEAR `near_withdraw`: w_near metered at 1.77 TGas (the NEAR it sends is a TRANSFER_BURN more). */
export const NEAR_WITHDRAW_BURN = 1_800n * GGAS;

// ---- envelopes of real receipts (test/fixtures/blocks/mainnet) ----
/** A receipt of one `Transfer` to a named account (a payout in NEAR, a refunded deposit): 0.223 TGas in the
 * blocks (one to an implicit account that does not exist yet creates it, and costs more). */
export const TRANSFER_BURN = 300n * GGAS;
/** NEP-145 `storage_deposit` (a token's, an exchange's registration): 29 receipts, at most 3.648 TGas
 * (usdt.tether-token.near, 114158749). */
export const STORAGE_DEPOSIT_BURN = 3_700n * GGAS;
/** A DEX's `ft_on_transfer` running a swap, per pool: Ref 7.754 TGas for one pool (151768255), Ref's fork Jumbo 7.980
 * for one (114081912), Ref 16.070 for two (81206675). */
export const SWAP_PER_POOL_BURN = 8_100n * GGAS;
/** A contract's `ft_on_transfer` crediting a deposit to an internal balance: Ref 3.285 TGas (125229395, msg ""). */
export const DEPOSIT_BURN = 3_300n * GGAS;
/** The callback a contract runs after paying a token out: Ref's `exchange_callback_post_withdraw`, at most 3.007
 * TGas (105089746; 2.327 at 125229395, 2.273 at 134585465). */
export const PAYOUT_CALLBACK_BURN = 3_100n * GGAS;
/** A token staked through `ft_on_transfer`: Sweat's jars 8.382 TGas (jars.sweat, 114081912). */
export const STAKE_ON_TRANSFER_BURN = 8_400n * GGAS;
/** A payable call that takes NEAR and records shares for it (`deposit_and_stake`): LiNEAR's own `add_liquidity`
 * 3.662 TGas (70834059), cheddar's `ft_mint` 4.614 (51188690), Ref's `add_liquidity` 10.464 (55905793): the
 * largest, as Meta Pool's and rNEAR's code is not public here. */
export const PAYABLE_MINT_BURN = 10_500n * GGAS;
