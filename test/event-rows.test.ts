// The event log's row format, written by hand for speed: it must say exactly what the plain definitions say.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { copyText } from '../db/copy-text.ts';
import { eventRow, fromRow, type DomainEvent } from '../indexer/event-rows.ts';
import { jsonWithBigints } from '../near/units.ts';

/** The definition: a replacer that writes every bigint as its decimal string. */
const reference = (value: unknown) => JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));

const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.bigInt(),
    fc.string(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.array(tie('value')),
    fc.dictionary(fc.string(), tie('value')),
  ),
})).value;

describe('jsonWithBigints', () => {
  it('equals JSON.stringify with a bigint replacer, at any depth', () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(jsonWithBigints(value)).toBe(reference(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps an own __proto__ key (JSON from a contract log can hold one), which a plain copy would drop', () => {
    const text = '{"__proto__":{"n":1},"a":[{"__proto__":false}]}';
    expect(jsonWithBigints(JSON.parse(text))).toBe(text);
  });

  it('still calls toJSON', () => {
    const at = new Date(Date.UTC(2026, 0, 1));
    expect(jsonWithBigints({ at, n: 1n })).toBe('{"at":"2026-01-01T00:00:00.000Z","n":"1"}');
  });
});

describe('eventRow', () => {
  const base = { blockHeight: 7, timestampMs: 1_700_000_000_000, receiptId: 'R\tx', txHash: null, index: 2 };

  it('keeps the key columns apart and the rest, amounts included, in the payload; fromRow gives the event back', () => {
    const events = [
      { ...base, kind: 'ft_transfer', contractId: 'token.near', from: 'a.near', to: 'b.near', amount: 10n ** 30n, memo: 'line\none' },
      { ...base, kind: 'swap', dex: 'AmmA', poolId: '5', tokenIn: 'a', tokenOut: 'b', amountIn: 3n, amountOut: 2n, totalFee: null, adminFee: null, receipts: ['x', 'y'] },
      { ...base, kind: 'pool_state', dex: 'AmmA', poolId: '1', state: { amounts: [1n, 2n], fee: 30, nested: { big: 5n } } },
    ] as unknown as DomainEvent[];
    for (const event of events) {
      const row = eventRow(event);
      const [blockHeight, receiptId, index, kind, timestampMs, txHash, payload] = row;
      expect([blockHeight, receiptId, index, kind, timestampMs, txHash]).toEqual([7, 'R\tx', 2, event.kind, 1_700_000_000_000, null]);
      const { blockHeight: _h, timestampMs: _t, receiptId: _r, txHash: _x, index: _i, kind: _k, ...rest } = event as unknown as Record<string, unknown>;
      expect(payload).toBe(reference(rest));
      const back = fromRow({ block_height: 7, receipt_id: 'R\tx', index: 2, kind: event.kind, timestamp_ms: 1_700_000_000_000, tx_hash: null, payload: JSON.parse(payload as string) });
      // Top-level amounts come back as bigint; a nested pool state keeps its decimal strings (projections copy it).
      if (event.kind === 'pool_state') expect(back).toEqual({ ...event, state: JSON.parse(reference((event as { state: unknown }).state)) });
      else expect(back).toEqual(event);
    }
  });

  it('leaves out fields that are undefined, as JSON does', () => {
    const event = { ...base, kind: 'ft_mint', contractId: 't.near', owner: 'o.near', amount: 1n, extra: undefined } as unknown as DomainEvent;
    expect(eventRow(event)[6]).toBe('{"contractId":"t.near","owner":"o.near","amount":"1"}');
  });
});

describe('copyText', () => {
  it('escapes backslash, tab, newline and carriage return, writes null as \\N and arrays as literals', () => {
    expect(copyText([['a\\b\tc\nd\re', null, 5, 12n, true, ['x"y', 2]]])).toBe('a\\\\b\\tc\\nd\\re\t\\N\t5\t12\tt\t{"x\\\\"y","2"}\n');
    expect(copyText([['plain'], ['two', 'cols']])).toBe('plain\ntwo\tcols\n');
    expect(copyText([])).toBe('');
  });
});
