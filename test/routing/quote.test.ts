// The pure steps of a quote's instructions: merging adjacent calls to one receiver, the 900 TGas cap, the gas
// model of near-facts.md, each against numbers worked out by hand.
import { describe, expect, it } from 'vitest';
import { capGas, estimateGas, toTransactions } from '../../api/routing/quote.ts';
import { functionCall, storageDepositCall, tgas } from '../../dexes/instructions.ts';
import { nearDepositCall } from '../../dexes/wrap/instructions.ts';

describe('instructions', () => {
  it('adjacent calls to one receiver are one transaction, others are not merged across', () => {
    const steps = [storageDepositCall('wrap.near', 'a.near'), nearDepositCall('wrap.near', 5n), storageDepositCall('b.near', 'a.near'), nearDepositCall('wrap.near', 6n)];
    expect(toTransactions(steps).map((t) => [t.NearTransaction.receiver_id, t.NearTransaction.actions.map((a) => a.FunctionCall.method_name)])).toEqual([
      ['wrap.near', ['storage_deposit', 'near_deposit']],
      ['b.near', ['storage_deposit']],
      ['wrap.near', ['near_deposit']],
    ]);
    // args are base64 of the JSON: {"account_id":"a.near","registration_only":true}
    expect(Buffer.from(toTransactions(steps)[0]!.NearTransaction.actions[0]!.FunctionCall.args, 'base64').toString()).toBe('{"account_id":"a.near","registration_only":true}');
  });

  it('caps the attached gas at 900 TGas by trimming the largest call', () => {
    const steps = [functionCall('a.near', 'x', {}, tgas(300), 0n, tgas(1)), functionCall('b.near', 'y', {}, tgas(400), 0n, tgas(1)), functionCall('c.near', 'z', {}, tgas(300), 0n, tgas(1))];
    // 300 + 400 + 300 = 1000 TGas: the 400 loses 100.
    expect(capGas(steps).map((s) => s.gas)).toEqual([tgas(300), tgas(300), tgas(300)]);
    expect(capGas(steps.slice(0, 2))).toEqual(steps.slice(0, 2));
  });

  it('the gas model: per transaction, per call, per byte, plus the attached gas', () => {
    const steps = [storageDepositCall('wrap.near', 'a.near'), nearDepositCall('wrap.near', 5n)];
    // One transaction: 216 119 000 000; two calls: 2·980 000 000 000; bytes: "storage_deposit" 15 + its args 48 +
    // "near_deposit" 12 + "{}" 2 = 77 bytes, ·49 919 649 = 3 843 812 973; attached 10 + 5 TGas.
    // 216 119 000 000 + 1 960 000 000 000 + 3 843 812 973 + 15 000 000 000 000 = 17 179 962 812 973
    expect(estimateGas(steps)).toBe(17_179_962_812_973n);
    // What they burn: each step's own burn in place of its attached gas, here 3.7 + 0.3 TGas for the registration and
    // 1.7 for near_deposit (dexes/burn.ts), 15 − 5.7 = 9.3 TGas less.
    expect(estimateGas(steps, 'burn')).toBe(7_879_962_812_973n);
    expect(estimateGas([steps[0]!, { ...steps[1]!, burn: tgas(2) }], 'burn')).toBe(8_179_962_812_973n);
  });
});
