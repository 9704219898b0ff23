// Recent volatility of a pool, for Auto slippage: the largest relative move of its price between consecutive
// indexed states (pool_history), in millionths. The price of a two-sided pool is amounts[1]/amounts[0] (x·y=k pools,
// Launch curves, stake rates); pools whose amounts are not a price (AmmDclA's reserves, stable pools) count 0. Pure.

const PPM = 1_000_000n;
const SCALE = 10n ** 24n;
/** The kinds whose amounts[1]/amounts[0] is their price. */
const PRICED_KINDS: ReadonlySet<string> = new Set(['simple', 'xyk', 'curve', 'stake']);

/** `states`: a pool's recent [kind, amounts] newest first. The largest |p_i − p_{i+1}| / p_{i+1}, in ppm. */
export function largestMovePpm(states: readonly { kind: string; amounts: readonly bigint[] }[]): bigint {
  const prices: bigint[] = [];
  for (const { kind, amounts } of states) {
    const [a0, a1] = amounts;
    if (!PRICED_KINDS.has(kind) || amounts.length !== 2 || a0 === undefined || a1 === undefined || a0 <= 0n || a1 <= 0n) break;
    prices.push((a1 * SCALE) / a0);
  }
  let largest = 0n;
  for (let i = 0; i + 1 < prices.length; i++) {
    const [newer, older] = [prices[i]!, prices[i + 1]!];
    if (older === 0n) continue;
    const move = ((newer > older ? newer - older : older - newer) * PPM) / older;
    if (move > largest) largest = move;
  }
  return largest;
}
