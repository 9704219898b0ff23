// web/src/format.ts on its own: the explorer's numbers as people read them. Every expected text is written out by
// hand; the comments say why it reads so.
import { describe, expect, it } from 'vitest';
import { axisPrice, changeClass, decimal, near, percent, time, toUnits, units, usd } from '../../web/src/format.ts';

describe('usd', () => {
  it('rounds to 6 significant digits (or those asked for), with thousands separators and no trailing zeros', () => {
    expect(usd('1234.5678')).toBe('$1,234.57'); // 1234.57|78: up
    expect(usd('0.012345678')).toBe('$0.0123457'); // leading zeros are not significant
    expect(usd('2.5')).toBe('$2.5');
    expect(usd(0)).toBe('$0');
    expect(usd('9999.996')).toBe('$10,000'); // 9999.99|6 carries into the thousands
    expect(usd('1234.5678', 4)).toBe('$1,235');
    expect(usd('0.00123456', 4)).toBe('$0.001235');
  });

  it('shows whole dollars from $10,000 on and millions with at most 2 decimals', () => {
    expect(usd('12345.6')).toBe('$12,346');
    expect(usd('1234567')).toBe('$1.23M');
    expect(usd('2500000')).toBe('$2.5M');
    // Just under a million rounds to the whole-dollar form, not to "$1M".
    expect(usd('999999.5')).toBe('$1,000,000');
  });

  it('writes a loss as -$2.14, the sign before the dollar, at every size', () => {
    expect(usd('-2.14')).toBe('-$2.14');
    expect(usd('-0.123456', 4)).toBe('-$0.1235');
    expect(usd('-12345.6')).toBe('-$12,346');
    expect(usd('-1234567')).toBe('-$1.23M');
  });

  it('shows no value as a dash', () => {
    expect(usd(null)).toBe('-');
    expect(usd(undefined)).toBe('-');
  });

  it("counts the zeros of a micro price in a subscript (DexScreener's form), with 4 significant digits", () => {
    // 0.0000000123|4: seven zeros after the point, then 1234.
    expect(usd('0.00000001234')).toBe('$0.0₇1234');
    expect(usd('0.000012345678')).toBe('$0.0₄1235'); // 1234|5678: up
    expect(usd('0.00001')).toBe('$0.0₄1'); // no trailing zeros
    expect(usd('-0.0000000005')).toBe('-$0.0₉5');
    expect(usd('1.5e-14')).toBe('$0.0₁₃15'); // two-digit counts, each digit a subscript
    // 0.0000999996 rounds up to 0.0001000: three zeros, written out as before.
    expect(usd('0.0000999996')).toBe('$0.0001');
    expect(usd('0.00012345')).toBe('$0.00012345');
    expect(usd('0.000012345678', 2)).toBe('$0.0₄12'); // fewer digits asked: fewer shown
  });
});

describe('axisPrice', () => {
  it("a chart axis's label: the subscript form for a micro price, else 6 significant digits", () => {
    expect(axisPrice(0.00000001234)).toBe('0.0₇1234');
    expect(axisPrice(0.000000012)).toBe('0.0₇12');
    expect(axisPrice(1234.5678)).toBe('1,234.57');
    expect(axisPrice(0)).toBe('0');
  });
});

describe('percent', () => {
  it('a fraction as a percentage with 2 decimals, a plus on gains and a minus on losses', () => {
    expect(percent('0.05')).toBe('+5.00%');
    expect(percent('0.123456')).toBe('+12.35%'); // 12.34|56: up
    expect(percent(0.005)).toBe('+0.50%');
    expect(percent(1)).toBe('+100.00%');
    expect(percent('-0.0214')).toBe('-2.14%');
    expect(percent('0')).toBe('0.00%');
    // A loss too small for 2 decimals keeps its sign.
    expect(percent('-0.00001')).toBe('-0.00%');
    expect(percent(null)).toBe('-');
  });
});

describe('units and near', () => {
  it('an integer in the smallest unit as a decimal of 6 significant digits (whole digits kept)', () => {
    expect(units('123456789', 6)).toBe('123.457'); // 123.456|789
    expect(units('1', 2)).toBe('0.01');
    expect(units('-5', 2)).toBe('-0.05');
    expect(units('1234', 0)).toBe('1,234');
    expect(units('1234', null)).toBe('1234'); // decimals unknown: the raw integer
    expect(units('123456789', 6, 4)).toBe('123.5');
  });

  it('yoctoNEAR (10^24) as NEAR', () => {
    expect(near('1000000000000000000000000')).toBe('1');
    expect(near('-2500000000000000000000000')).toBe('-2.5');
    expect(near('1234567890000000000000000000')).toBe('1,234.57'); // 1234.56|789
    expect(near('123456789012345678901234567')).toBe('123.457');
    expect(near('18721725279077600000000')).toBe('0.0187217'); // 0.0187217|25...
    expect(near('0')).toBe('0');
    // One yoctoNEAR is below the 20 fraction digits asked of toLocaleString: it reads 0.
    expect(near('1')).toBe('0');
  });

  it('decimal: whole digits are kept, huge values go exponential, text that is no number is left alone', () => {
    expect(decimal('1234567.891')).toBe('1,234,568');
    expect(decimal('0.000012345678')).toBe('0.0000123457');
    expect(decimal('-0.5')).toBe('-0.5');
    expect(decimal('1e16')).toBe('1.000e+16');
    expect(decimal('abc')).toBe('abc');
  });
});

describe('the rest', () => {
  it('changeClass: up, down or nothing', () => {
    expect([changeClass('0.1'), changeClass('-0.1'), changeClass(0), changeClass(null)]).toEqual(['up', 'down', '', '']);
  });

  it('toUnits: a typed amount as the smallest unit, extra decimals cut, nothing positive refused', () => {
    expect(toUnits('1.5', 24)).toBe('1500000000000000000000000');
    expect(toUnits('.5', 2)).toBe('50');
    expect(toUnits(' 1.2345 ', 2)).toBe('123');
    expect([toUnits('0', 6), toUnits('', 2), toUnits('.', 2), toUnits('-1', 2), toUnits('1e3', 2)]).toEqual([null, null, null, null, null]);
  });

  it('time: UTC to the second', () => {
    expect(time(Date.UTC(2026, 0, 1, 12, 34, 56, 789))).toBe('2026-01-01 12:34:56');
  });
});
