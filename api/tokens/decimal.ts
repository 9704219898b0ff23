// Exact decimal text for JSON: USD figures are stored with 18 digits after the point; amounts are integers.
// Pure bigint arithmetic, no floating point.

export const USD_DIGITS = 18;
export const USD_SCALE = 10n ** BigInt(USD_DIGITS);

/** A decimal string as an integer number of 10^-digits units (extra digits truncated toward zero). */
export function parseScaled(text: string, digits = USD_DIGITS): bigint {
  const match = /^(-?)(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) throw new Error(`not a decimal: ${text}`);
  const fraction = (match[3] ?? '').slice(0, digits).padEnd(digits, '0');
  const value = BigInt((match[2] || '0') + fraction);
  return match[1] === '-' ? -value : value;
}

/** An integer of 10^-digits units as the shortest decimal text (no trailing zeros, no trailing point). */
export function formatScaled(value: bigint, digits = USD_DIGITS): string {
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const scale = 10n ** BigInt(digits);
  const whole = abs / scale;
  const fraction = (abs % scale).toString().padStart(digits, '0').replace(/0+$/, '');
  const text = fraction ? `${whole}.${fraction}` : `${whole}`;
  return negative && abs !== 0n ? `-${text}` : text;
}

/**
 * Rounds a decimal string to `significant` significant digits, half away from zero, and trims trailing zeros:
 * `roundSignificant('1234.5678', 3)` is `'1230'`, `roundSignificant('0.00012345', 2)` is `'0.00012'`.
 */
export function roundSignificant(text: string, significant: number): string {
  const match = /^(-?)(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!match) throw new Error(`not a decimal: ${text}`);
  const sign = match[1] ?? '';
  const intPart = match[2] || '0';
  const fracPart = match[3] ?? '';
  const all = intPart + fracPart;
  const firstNonZero = all.search(/[1-9]/);
  if (firstNonZero < 0) return '0';
  const pointAt = intPart.length;
  const keepUpTo = firstNonZero + significant; // index into `all` of the first dropped digit
  if (keepUpTo >= all.length) return trim(sign, intPart, fracPart);
  let kept = BigInt(all.slice(0, keepUpTo) || '0');
  if (Number(all[keepUpTo]) >= 5) kept += 1n;
  // Scale back: the kept digits end at `keepUpTo`; pad with zeros up to the point when that is further on.
  const keptText = kept.toString().padStart(keepUpTo, '0');
  if (keepUpTo <= pointAt) return trim(sign, keptText + '0'.repeat(pointAt - keepUpTo), '');
  const split = keptText.length - (keepUpTo - pointAt);
  return trim(sign, keptText.slice(0, split), keptText.slice(split));
}

function trim(sign: string, intPart: string, fracPart: string): string {
  const whole = intPart.replace(/^0+(?=\d)/, '') || '0';
  const fraction = fracPart.replace(/0+$/, '');
  const text = fraction ? `${whole}.${fraction}` : whole;
  return text === '0' ? '0' : sign + text;
}

/** A stored USD decimal (18 digits after the point) for JSON: trailing zeros trimmed, then `precision` applied. */
export function presentDecimal(text: string | null, precision: number | undefined): string | null {
  if (text === null) return null;
  const trimmed = formatScaled(parseScaled(text));
  return precision === undefined ? trimmed : roundSignificant(trimmed, precision);
}

/** USD value of an integer amount of a token with `decimals`, at `priceUsd` per whole token, exact to 10^-18. */
export function usdValue(amount: bigint, decimals: number, priceUsd: string): string {
  return formatScaled((amount * parseScaled(priceUsd)) / 10n ** BigInt(decimals));
}

/** `part / whole` as a decimal fraction exact to 10^-18 (0.25 = a quarter), or null when `whole` is not positive. */
export function share(part: bigint, whole: bigint): string | null {
  if (whole <= 0n) return null;
  return formatScaled((part * USD_SCALE) / whole);
}
