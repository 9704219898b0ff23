// QuoteA has no pool math: it is request-for-quote. The price of a trade is whatever a solver answers on the relay
// (`quote` over JSON-RPC), and nothing on chain lets an indexer predict it; a route's amounts come from that answer.
//
// What the verifier itself computes is its protocol fee on the paid side of a `token_diff` (near/intents
// core/src/intents/token_diff.rs `execute_intent`, core/src/fees.rs `Pips::fee_ceil`): in pips (1 pip = 0.0001%,
// 10^6 pips = 100%), rounded up, taken out of |delta| and reported as `fees_collected`. NFTs and multi-token amounts
// of at most 1 pay none. Bigint only.

export const PIPS_PER_UNIT = 1_000_000n;

/** The verifier's fee on paying `amount` of `tokenId` (an Intents id: `nep141:..`, `nep171:..`, `nep245:..`). */
export function tokenDiffFee(tokenId: string, amount: bigint, feePips: number): bigint {
  if (!Number.isInteger(feePips) || feePips < 0 || BigInt(feePips) > PIPS_PER_UNIT) {
    throw new RangeError(`QuoteA: fee ${feePips} pips is not in 0..${PIPS_PER_UNIT}`);
  }
  if (amount < 0n) throw new RangeError('QuoteA: negative amount');
  if (tokenId.startsWith('nep171:') || (tokenId.startsWith('nep245:') && amount <= 1n)) return 0n;
  return (amount * BigInt(feePips) + PIPS_PER_UNIT - 1n) / PIPS_PER_UNIT;
}
