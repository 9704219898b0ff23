// Wrap quotes: every Wrap conversion is 1:1 and free, both ways (wNEAR `near_deposit` / `near_withdraw`; AmmA
// inner-balance deposit / `withdraw`), so exact in and exact out are the identity. Pure, bigint only.
//
// What is not a rate but does cost the trader: an account that wNEAR does not know yet pays its storage minimum
// (0.00125 NEAR) out of its first `near_deposit` (the mint is the deposit minus it), and AmmA inner balances need a
// registered exchange account (`storage_deposit`) and, for unlisted tokens, `register_tokens`. Those are helper
// steps of a route, not part of the conversion.

/** Output of converting `amountIn` (exact in): the same amount. */
export function wrapAmountOut(amountIn: bigint): bigint {
  if (amountIn < 0n) throw new RangeError('Wrap: negative amount');
  return amountIn;
}

/** Input needed to receive `amountOut` (exact out): the same amount. */
export function wrapAmountIn(amountOut: bigint): bigint {
  if (amountOut < 0n) throw new RangeError('Wrap: negative amount');
  return amountOut;
}

/** 0.00125 NEAR: what wNEAR keeps from the first deposit of an unregistered account (`storage_balance_bounds.min`). */
export const WNEAR_STORAGE_MINIMUM = 1_250_000_000_000_000_000_000n;

/** wNEAR minted by `near_deposit` of `deposit` yoctoNEAR: all of it, or minus the storage minimum for a new account. */
export function wnearMintedByDeposit(deposit: bigint, options?: { registered?: boolean }): bigint {
  if (deposit <= 0n) throw new RangeError('Wrap: near_deposit needs a positive deposit');
  if (options?.registered === false) {
    if (deposit < WNEAR_STORAGE_MINIMUM) throw new RangeError('Wrap: deposit below the storage minimum (ERR_DEPOSIT_TOO_SMALL)');
    return deposit - WNEAR_STORAGE_MINIMUM;
  }
  return deposit;
}
