// Numbers as people read them: token amounts from integer strings and decimals, USD from exact decimal strings.

/** An integer amount in the smallest unit -> a decimal text with at most `digits` significant digits. */
export function units(amount: string, decimals: number | null | undefined, digits = 6): string {
  if (decimals === null || decimals === undefined) return amount;
  const negative = amount.startsWith('-');
  const raw = (negative ? amount.slice(1) : amount).padStart(decimals + 1, '0');
  const whole = raw.slice(0, raw.length - decimals);
  const fraction = raw.slice(raw.length - decimals);
  return (negative ? '-' : '') + decimal(`${whole}.${fraction}`, digits);
}

/** A decimal text rounded to `digits` significant digits (whole digits are kept), with thousands separators. */
export function decimal(text: string, digits = 6): string {
  const value = Number(text);
  if (!Number.isFinite(value)) return text;
  const abs = Math.abs(value);
  if (abs === 0) return '0';
  if (abs >= 1e15) return value.toExponential(3);
  const maximumFractionDigits = abs >= 1 ? Math.max(0, digits - Math.floor(Math.log10(abs)) - 1) : Math.min(20, digits - Math.floor(Math.log10(abs)) - 1);
  return value.toLocaleString('en-US', { maximumFractionDigits });
}

export function usd(text: string | number | null | undefined, digits = 6): string {
  if (text === null || text === undefined) return '-';
  const value = Number(text);
  // A loss reads -$2.14: the sign before the currency, as finance writes it.
  const sign = value < 0 ? '-' : '';
  const size = Math.abs(value);
  if (size >= 1_000_000) return `${sign}$${(size / 1_000_000).toLocaleString('en-US', { maximumFractionDigits: 2 })}M`;
  if (size >= 10_000) return `${sign}$${Math.round(size).toLocaleString('en-US')}`;
  const micro = tiny(size, Math.min(digits, TINY_DIGITS));
  if (micro !== undefined) return `${sign}$${micro}`;
  const raw = String(text).trim();
  return `${sign}$${decimal(raw.startsWith('-') ? raw.slice(1) : raw, digits)}`;
}

/** Significant digits of a tiny value's subscript form (DexScreener shows 4). */
const TINY_DIGITS = 4;
/** From this many zeros after the point on, they are counted rather than written. */
const TINY_ZEROS = 4;
const SUBSCRIPT = '₀₁₂₃₄₅₆₇₈₉';

/**
 * A positive value below 0.0001 with its zeros after the point counted in a subscript, DexScreener's way:
 * 0.00000001234 -> 0.0₇1234 (seven zeros, then `digits` significant digits, no trailing zeros). Written out, a Launch
 * token's price is wider than its column; as 0.00 it reads as nothing. Undefined for 0 and values from 0.0001 on.
 */
export function tiny(size: number, digits = TINY_DIGITS): string | undefined {
  if (!(size > 0)) return undefined;
  // toExponential rounds, carrying into the exponent (9.99995e-9 -> 1.000e-8).
  const [mantissa, exponent] = size.toExponential(digits - 1).split('e');
  const zeros = -Number(exponent) - 1;
  // Below 0.0001 but rounded up to it (0.0000999996): that rounded value, written out.
  if (zeros < TINY_ZEROS) return size < 10 ** -TINY_ZEROS ? decimal(size.toExponential(digits - 1), digits) : undefined;
  const significant = mantissa!.replace('.', '').replace(/0+$/, '');
  return `0.0${[...String(zeros)].map((d) => SUBSCRIPT[Number(d)]).join('')}${significant}`;
}

/** A price as a chart's axis and crosshair label it: the subscript form when tiny, else 6 significant digits. */
export function axisPrice(price: number): string {
  const sign = price < 0 ? '-' : '';
  return sign + (tiny(Math.abs(price)) ?? decimal(String(Math.abs(price))));
}

/** A fraction (0.05) as a signed percentage (+5.00%). */
export function percent(fraction: string | number | null | undefined): string {
  if (fraction === null || fraction === undefined) return '-';
  const value = Number(fraction) * 100;
  return `${value > 0 ? '+' : ''}${value.toFixed(2)}%`;
}

/** A fee fraction (0.003) as a percentage (0.3%). */
export function feePercent(fraction: string): string {
  return `${decimal(String(Number(fraction) * 100), 4)}%`;
}

export function changeClass(fraction: string | number | null | undefined): string {
  const value = Number(fraction ?? 0);
  return value > 0 ? 'up' : value < 0 ? 'down' : '';
}

export function time(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
}

/** yoctoNEAR -> NEAR. */
export const near = (yocto: string, digits = 6) => units(yocto, 24, digits);

/** A human amount ("1.5") -> the smallest unit's integer string, or null. */
export function toUnits(text: string, decimals: number): string | null {
  const match = /^\s*(\d*)(?:\.(\d*))?\s*$/.exec(text);
  if (!match || (match[1] === '' && (match[2] ?? '') === '')) return null;
  const fraction = (match[2] ?? '').slice(0, decimals).padEnd(decimals, '0');
  const value = BigInt((match[1] || '0') + fraction);
  return value > 0n ? value.toString() : null;
}
