// Units and integer parsing. Every on-chain amount is an integer in the smallest unit and lives
// in a bigint; nothing here ever goes through a float.

/** 1 NEAR = 10^24 yoctoNEAR. */
export const YOCTO_PER_NEAR = 10n ** 24n;
/** 1 TGas = 10^12 gas. */
export const GAS_PER_TGAS = 10n ** 12n;
export const U128_MAX = (1n << 128n) - 1n;

// BigInt('') is 0n and BigInt(' 0x1f ') is 31n: validate the text before trusting BigInt.
// u128 has at most 39 digits; one more allows a leading zero some producers write.
const DECIMAL = /^\d{1,40}$/;

/** A u128 written as a decimal string (the JSON form of amounts), or null when it is not one. */
export function parseU128(text: unknown): bigint | null {
  if (typeof text !== 'string') return null;
  if (!DECIMAL.test(text)) return null;
  const value = BigInt(text);
  return value <= U128_MAX ? value : null;
}

/**
 * A u64/u128 that JSON may carry either as a decimal string or as a number (gas is a number in
 * nearcore's JSON; a number above 2^53 has already lost precision and is refused).
 */
export function parseUint(value: unknown): bigint | null {
  if (typeof value === 'number') {
    return Number.isSafeInteger(value) && value >= 0 ? BigInt(value) : null;
  }
  return parseU128(value);
}

/** JSON with every bigint, at any depth, as a decimal string (how amounts travel and are stored). */
export function jsonWithBigints(value: unknown): string {
  // A copy without bigints, then a plain stringify: a replacer function takes V8 off its fast path (3x slower).
  return JSON.stringify(bigintsAsStrings(value));
}

function bigintsAsStrings(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object' || typeof (value as { toJSON?: unknown }).toJSON === 'function') return value;
  if (Array.isArray(value)) return value.map(bigintsAsStrings);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const v = bigintsAsStrings((value as Record<string, unknown>)[key]);
    // An own `__proto__` key (JSON from a contract's log can hold one) would set the copy's prototype instead.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: v, enumerable: true, writable: true, configurable: true });
    else copy[key] = v;
  }
  return copy;
}
