// nearcore's `GasCounter` (runtime/near-vm-runner/src/logic/gas_counter.rs), in bigint, shared with
// the instrumented module through its exported remaining-gas global when the module is metered.

import type { ActionCost, ExtCost, RuntimeParams } from './params.ts';

/** A host error, by nearcore's `HostError` variant name, with nearcore's message. */
export class HostError extends Error {
  constructor(
    readonly kind: string,
    message: string,
  ) {
    super(message);
    this.name = 'HostError';
  }
}

export const gasExceeded = (): HostError => new HostError('GasExceeded', 'Exceeded the prepaid gas.');
export const integerOverflow = (): HostError => new HostError('IntegerOverflow', 'Integer overflow.');

const U64_MAX = (1n << 64n) - 1n;
/** nearcore's gas is a u64: a sum or product past it is `IntegerOverflow` (checked_add / checked_mul). */
const checked = (x: bigint): bigint => {
  if (x > U64_MAX) throw integerOverflow();
  return x;
};
export const gasLimitExceeded = (): HostError =>
  new HostError('GasLimitExceeded', 'Exceeded the maximum amount of gas allowed to burn per contract.');

/** Gas a call burnt per cost, keyed like nearcore's profile (`STORAGE_READ_BASE`, `FUNCTION_CALL_BASE`...). */
export type GasProfile = Record<string, bigint>;

export class GasCounter {
  burnt = 0n;
  promises = 0n;
  /** The fast counter's limit: min(max_gas_burnt, prepaid − gas reserved for promises). */
  limit: bigint;
  readonly profile = new Map<string, bigint>();
  /** Remaining-gas global of the metered module (wasm instructions decrement it). */
  private global: WebAssembly.Global | null = null;
  private readonly ext: RuntimeParams['ext'];

  constructor(
    params: RuntimeParams,
    readonly maxGasBurnt: bigint,
    readonly prepaid: bigint,
    readonly isView: boolean,
  ) {
    this.ext = params.ext;
    this.limit = maxGasBurnt < prepaid ? maxGasBurnt : prepaid;
  }

  attach(global: WebAssembly.Global | null): void {
    this.global = global;
    this.push();
  }

  /** Takes in what the module's instructions burnt since the last host call. */
  pull(): void {
    if (this.global === null) return;
    const left = this.global.value as bigint;
    if (left < 0n) {
      this.burnt = this.limit;
      // The meter ran past `limit`; process_gas_limit says GasLimitExceeded when that passes max_gas_burnt, which
      // it does when the limit is max_gas_burnt (also when prepaid gas equals it: both crossed, nearcore prefers it).
      throw this.limit === this.maxGasBurnt ? gasLimitExceeded() : gasExceeded();
    }
    this.burnt = this.limit - left;
  }

  /** Hands the remaining gas back to the module. */
  push(): void {
    if (this.global !== null) this.global.value = this.limit - this.burnt;
  }

  /** After the module trapped: whether it was the meter running out (it sets the global to -1). */
  exhausted(): boolean {
    return this.global !== null && (this.global.value as bigint) < 0n;
  }

  burn(gas: bigint): void {
    const next = checked(this.burnt + gas);
    if (next <= this.limit) {
      this.burnt = next;
      return;
    }
    throw this.processGasLimit(next, next + this.promises);
  }

  processGasLimit(newBurnt: bigint, newUsed: bigint): HostError {
    const hard = this.prepaid < this.maxGasBurnt ? this.prepaid : this.maxGasBurnt;
    this.burnt = newBurnt < hard ? newBurnt : hard;
    const usedLimit = this.prepaid < newUsed ? this.prepaid : newUsed;
    this.promises = usedLimit > this.burnt ? usedLimit - this.burnt : 0n;
    return newBurnt > this.maxGasBurnt ? gasLimitExceeded() : gasExceeded();
  }

  private record(name: string, before: bigint): void {
    const delta = this.burnt - before;
    if (delta !== 0n) this.profile.set(name, (this.profile.get(name) ?? 0n) + delta);
  }

  payBase(cost: ExtCost): void {
    this.payPer(cost, 1n);
  }

  payPer(cost: ExtCost, num: bigint | number): void {
    const use = checked(BigInt(num) * this.ext[cost]);
    const before = this.burnt;
    try {
      this.burn(use);
    } finally {
      this.record(cost.toUpperCase(), before);
    }
  }

  /** Burns `burnGas` and reserves `useGas − burnGas` for the receipts being created. */
  payAction(burnGas: bigint, useGas: bigint, action: ActionCost): void {
    const before = this.burnt;
    try {
      this.deduct(burnGas, useGas);
    } finally {
      this.record(actionProfileName(action), before);
    }
  }

  prepay(useGas: bigint): void {
    this.deduct(0n, useGas);
  }

  private deduct(burnGas: bigint, useGas: bigint): void {
    const promisesGas = useGas - burnGas;
    const newPromises = checked(this.promises + promisesGas);
    const newBurnt = checked(this.burnt + burnGas);
    const newUsed = checked(newBurnt + newPromises);
    if (newBurnt <= this.maxGasBurnt && newUsed <= this.prepaid) {
      if (promisesGas !== 0n && !this.isView) {
        const room = this.prepaid - newPromises;
        this.limit = this.maxGasBurnt < room ? this.maxGasBurnt : room;
      }
      this.burnt = newBurnt;
      this.promises = newPromises;
      return;
    }
    throw this.processGasLimit(newBurnt, newUsed);
  }

  get used(): bigint {
    return this.burnt + this.promises;
  }

  remaining(): bigint {
    return this.limit - this.burnt;
  }

  /** The profile with `WASM_INSTRUCTION` = burnt gas not charged by any host cost, as nearcore computes it. */
  finalProfile(): GasProfile {
    const out: GasProfile = {};
    let host = 0n;
    for (const [k, v] of this.profile) {
      out[k] = v;
      host += v;
    }
    out.WASM_INSTRUCTION = this.burnt - host;
    return out;
  }
}

/** The profile's names of action costs (nearcore's `ActionCosts` upper-cased). */
export function actionProfileName(action: ActionCost): string {
  return action.toUpperCase();
}
