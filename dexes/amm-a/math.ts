// AmmA simple-pool (constant product) quotes, exactly as the contract computes them, bigint only
// (docs/near-facts.md, ref-storage-layout.md §8; verified to the unit against the
// Swapped logs of the fixture blocks). Fees are basis points of the input (divisor 10 000); the
// admin part of the fee is paid by minting LP shares, so it does not change the output or the
// reserves. X, Y are the reserves of the input and output token.

export const FEE_DIVISOR = 10_000n;

/** `out = floor(a·(10000−f)·Y / (10000·X + a·(10000−f)))`. Returns 0n when nothing comes out. */
export function simpleGetAmountOut(reserveIn: bigint, reserveOut: bigint, amountIn: bigint, totalFee: number): bigint {
  checkArgs(reserveIn, reserveOut, amountIn, totalFee);
  if (amountIn === 0n) return 0n;
  const inWithFee = amountIn * (FEE_DIVISOR - BigInt(totalFee));
  const denominator = FEE_DIVISOR * reserveIn + inWithFee;
  if (denominator === 0n) return 0n;
  return (inWithFee * reserveOut) / denominator;
}

/**
 * simpleGetAmountOut for one pool direction, with the arguments checked and the constant factors computed once: a
 * router quotes the same pool for thousands of amounts. Same formula, same results.
 */
export function simpleAmountOutQuoter(reserveIn: bigint, reserveOut: bigint, totalFee: number): (amountIn: bigint) => bigint {
  checkArgs(reserveIn, reserveOut, 0n, totalFee);
  const feeFactor = FEE_DIVISOR - BigInt(totalFee);
  const scaledIn = FEE_DIVISOR * reserveIn;
  return (amountIn) => {
    if (amountIn <= 0n) {
      if (amountIn < 0n) throw new RangeError('AmmA simple pool: negative amount');
      return 0n;
    }
    const inWithFee = amountIn * feeFactor;
    const denominator = scaledIn + inWithFee;
    return denominator === 0n ? 0n : (inWithFee * reserveOut) / denominator;
  };
}

/**
 * Exact output (the contract's `swap_by_output`, >= 1.9.3): `in = floor(X·b·10000 / ((Y−b)·(10000−f))) + 1`.
 * Returns null when `amountOut` is not below the output reserve (or the fee is 100 %).
 */
export function simpleGetAmountIn(reserveIn: bigint, reserveOut: bigint, amountOut: bigint, totalFee: number): bigint | null {
  checkArgs(reserveIn, reserveOut, amountOut, totalFee);
  if (amountOut >= reserveOut) return null;
  const feeFactor = FEE_DIVISOR - BigInt(totalFee);
  if (feeFactor === 0n) return null;
  return (reserveIn * amountOut * FEE_DIVISOR) / ((reserveOut - amountOut) * feeFactor) + 1n;
}

/** The reserves after an exact-in swap: X + a, Y − out. */
export function simpleSwap(
  reserveIn: bigint,
  reserveOut: bigint,
  amountIn: bigint,
  totalFee: number,
): { amountOut: bigint; reserveIn: bigint; reserveOut: bigint } {
  const amountOut = simpleGetAmountOut(reserveIn, reserveOut, amountIn, totalFee);
  return { amountOut, reserveIn: reserveIn + amountIn, reserveOut: reserveOut - amountOut };
}

function checkArgs(x: bigint, y: bigint, amount: bigint, fee: number): void {
  if (x < 0n || y < 0n || amount < 0n) throw new RangeError('AmmA simple pool: negative amount');
  if (!Number.isInteger(fee) || fee < 0 || fee > 10_000) {
    throw new RangeError(`AmmA simple pool: total_fee ${fee} is not in 0..10000 bps`);
  }
}
