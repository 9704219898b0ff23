import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { GAS_GLOBAL, meter } from '../../near/vm/meter.ts';

// The project's type libraries (ES2023, @types/node 20) do not declare the WebAssembly global; these are the parts
// of it this test uses.
interface WasmGlobal {
  value: bigint;
}
interface WasmInstance {
  exports: Record<string, unknown>;
}
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: {
    new (bytes: Uint8Array): object;
    imports(module: object): { module: string; name: string; kind: string }[];
    exports(module: object): { name: string; kind: string }[];
    customSections(module: object, name: string): ArrayBuffer[];
  };
  Instance: new (module: object, imports?: Record<string, Record<string, unknown>>) => WasmInstance;
  Global: new (descriptor: { value: string; mutable: boolean }, value: number) => object;
  RuntimeError: new (message?: string) => Error;
}
const WebAssembly = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

const OP = 822_756n; // wasm_regular_op_cost on mainnet today
const WASM_DIR = new URL('../../near/vm/wasm/', import.meta.url);

interface SourceRow {
  file: string;
  sha256: string;
  bytes: number;
}

/** The table of near/vm/wasm/SOURCES.md: file, full sha256 and size of each vendored wasm (before gzip). */
function readSources(): SourceRow[] {
  const text = readFileSync(new URL('SOURCES.md', WASM_DIR), 'utf8');
  const rows: SourceRow[] = [];
  for (const line of text.split('\n')) {
    const m = /^\| `([^`]+\.wasm)` \| .* \| `([0-9a-f]{64})` \| (\d+) \|$/.exec(line);
    if (m) rows.push({ file: m[1]!, sha256: m[2]!, bytes: Number(m[3]) });
  }
  return rows;
}

function loadWasm(file: string): Uint8Array {
  return gunzipSync(readFileSync(new URL(`${file}.gz`, WASM_DIR)));
}

// --- a tiny assembler for the hand-written module --------------------------------------------------------------

function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}
const vec = (items: number[][]): number[] => [...leb(items.length), ...items.flat()];
const section = (id: number, payload: number[]): number[] => [id, ...leb(payload.length), ...payload];
const str = (s: string): number[] => [...leb(s.length), ...Buffer.from(s, 'utf8')];

const I32 = 0x7f;
const I64 = 0x7e;

interface Func {
  name: string;
  type: number;
  locals: [number, number][];
  code: number[];
}

function assemble(opts: {
  types: [number[], number[]][];
  funcs: Func[];
  importGlobal?: boolean;
  globals?: number;
  memory?: boolean;
  exports?: boolean;
  custom?: [string, number[]];
}): Uint8Array {
  const bytes = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  bytes.push(...section(1, vec(opts.types.map(([p, r]) => [0x60, ...vec(p.map((t) => [t])), ...vec(r.map((t) => [t]))]))));
  if (opts.importGlobal) bytes.push(...section(2, vec([[...str('env'), ...str('g'), 0x03, I32, 0x00]])));
  bytes.push(...section(3, vec(opts.funcs.map((f) => leb(f.type)))));
  if (opts.memory) bytes.push(...section(5, vec([[0x00, 0x01]])));
  if (opts.globals) {
    const g = Array.from({ length: opts.globals }, () => [I32, 0x01, 0x41, 0x05, 0x0b]);
    bytes.push(...section(6, vec(g)));
  }
  if (opts.exports !== false) bytes.push(...section(7, vec(opts.funcs.map((f, i) => [...str(f.name), 0x00, ...leb(i)]))));
  bytes.push(
    ...section(
      10,
      vec(
        opts.funcs.map((f) => {
          const body = [...vec(f.locals.map(([n, t]) => [...leb(n), t])), ...f.code];
          return [...leb(body.length), ...body];
        }),
      ),
    ),
  );
  if (opts.custom) bytes.push(...section(0, [...str(opts.custom[0]), ...opts.custom[1]]));
  return Uint8Array.from(bytes);
}

// The functions, with their charges worked out by hand from finite-wasm's rules (near/vm/meter.ts header). Every
// function first pays its frame: ceil((64 + params + locals) / 8) units; one i32 param = 68 bytes -> 9 units,
// plus one i32 local = 72 bytes -> 9 units.
const FUNCS: Func[] = [
  {
    // (param $n i32) (result i32) (local $acc i32): adds 3 to $acc $n times.
    //   block                    0 (block is free)
    //     loop                   1, charged inside the loop, every iteration
    //       local.get $n; i32.eqz; br_if 1          -> with the loop's 1: one charge of 4 per iteration
    //       local.get $acc; i32.const 3; i32.add; local.set $acc
    //       local.get $n; i32.const 1; i32.sub; local.set $n; br 0   -> one charge of 9 per pass through the body
    //     end                    dead (after br 0), free
    //   end                      free (a branch target: a charge point of 0)
    //   local.get $acc; end      -> one charge of 1
    // Total: 9 (frame) + 4 (N + 1) + 9 N + 1 = 13 N + 14 units.
    name: 'loop',
    type: 0,
    locals: [[1, I32]],
    code: [
      0x02, 0x40, 0x03, 0x40, 0x20, 0, 0x45, 0x0d, 1, 0x20, 1, 0x41, 3, 0x6a, 0x21, 1, 0x20, 0, 0x41, 1, 0x6b, 0x21, 0,
      0x0c, 0, 0x0b, 0x0b, 0x20, 1, 0x0b,
    ],
  },
  {
    // (param i32) (result i32): local.get 0; if (result i32) i32.const 1 else i32.const 2 end; end
    // local.get + if = 2, then 1 in either arm: 9 + 2 + 1 = 12 units.
    name: 'choose',
    type: 0,
    locals: [],
    code: [0x20, 0, 0x04, I32, 0x41, 1, 0x05, 0x41, 2, 0x0b, 0x0b],
  },
  {
    // (param $n i32): memory.fill(0, 0, $n). 9 + 3 (two consts, local.get) units, then the fill on its own:
    // linear base + unit × $n (defaults 32 × op and op).
    name: 'fill',
    type: 1,
    locals: [],
    code: [0x41, 0, 0x41, 0, 0x20, 0, 0xfc, 11, 0, 0x0b],
  },
  {
    // (param i32) (result i32): choose(x) + choose(x). local.get + call = 2, local.get + call = 2, i32.add = 1:
    // 9 + 5 own units, plus 2 × 12 in the callee: 38 units.
    name: 'twice',
    type: 0,
    locals: [],
    code: [0x20, 0, 0x10, 1, 0x20, 0, 0x10, 1, 0x6a, 0x0b],
  },
  {
    // (param i32) (result i32): block (result i32) i32.const 7; br 0; i32.const 1; i32.add end; end
    // block free, const + br = 2; the code after br is dead and not charged: 9 + 2 = 11 units.
    name: 'dead',
    type: 0,
    locals: [],
    code: [0x02, I32, 0x41, 7, 0x0c, 0, 0x41, 1, 0x6a, 0x0b, 0x0b],
  },
  {
    // (param i32): unreachable. 9 + 1 = 10 units, then a trap that is not "gas exceeded".
    name: 'boom',
    type: 1,
    locals: [],
    code: [0x00, 0x0b],
  },
];

const TYPES: [number[], number[]][] = [
  [[I32], [I32]],
  [[I32], []],
];

function handModule(): Uint8Array {
  return assemble({ types: TYPES, funcs: FUNCS, importGlobal: true, globals: 1, memory: true, custom: ['name', [0x00, ...str('hand')]] });
}

function instantiate(wasm: Uint8Array): { call: (name: string, arg: number) => unknown; gas: WasmGlobal } {
  const instance = new WebAssembly.Instance(new WebAssembly.Module(wasm), {
    env: { g: new WebAssembly.Global({ value: 'i32', mutable: false }, 0) },
  });
  const gas = instance.exports[GAS_GLOBAL] as WasmGlobal;
  return { call: (name, arg) => (instance.exports[name] as (x: number) => unknown)(arg), gas };
}

/** Runs `name(arg)` with exactly `units × OP` gas, with one gas unit less, and with 5 more. */
function expectExactCharge(wasm: Uint8Array, name: string, arg: number, units: bigint, result: unknown): void {
  const { call, gas } = instantiate(wasm);
  const need = units * OP;
  gas.value = need;
  expect(call(name, arg)).toBe(result);
  expect(gas.value).toBe(0n);

  gas.value = need + 5n;
  expect(call(name, arg)).toBe(result);
  expect(gas.value).toBe(5n);

  gas.value = need - 1n;
  expect(() => call(name, arg)).toThrow(WebAssembly.RuntimeError);
  expect(gas.value).toBe(-1n);
}

describe('meter: the vendored release wasm', () => {
  const rows = readSources();

  it('SOURCES.md lists the vendored files', () => {
    expect(rows.map((r) => r.file).sort()).toEqual([
      'defuse_0.2.10.wasm',
      'fungible_token_sdk3.1.wasm',
      'fungible_token_sdk4.1.wasm',
      'ref_exchange_v1.6.2.wasm',
      'ref_exchange_v1.7.2.wasm',
      'ref_exchange_v1.8.0.wasm',
      'ref_exchange_v1.9.16.wasm',
      'ref_exchange_v1.9.17.wasm',
      'ref_exchange_v1.9.4.wasm',
      'w_near.wasm',
    ]);
  });

  for (const row of rows) {
    it(`${row.file}: matches SOURCES.md, and metered it validates, compiles and exports the gas global`, () => {
      const wasm = loadWasm(row.file);
      expect(wasm.length).toBe(row.bytes);
      expect(createHash('sha256').update(wasm).digest('hex')).toBe(row.sha256);
      const metered = meter(wasm, OP);
      expect(WebAssembly.validate(metered)).toBe(true);
      const module = new WebAssembly.Module(metered);
      const before = WebAssembly.Module.exports(new WebAssembly.Module(wasm));
      const after = WebAssembly.Module.exports(module);
      expect(after.slice(0, before.length)).toEqual(before);
      expect(after.slice(before.length)).toEqual([{ name: GAS_GLOBAL, kind: 'global' }]);
      expect(WebAssembly.Module.imports(module)).toEqual(WebAssembly.Module.imports(new WebAssembly.Module(wasm)));
    });
  }

  it('the metered Ref exchange links with stub imports that throw (nothing is called)', () => {
    const metered = meter(loadWasm('ref_exchange_v1.9.17.wasm'), OP);
    const module = new WebAssembly.Module(metered);
    const imports: Record<string, Record<string, unknown>> = {};
    for (const imp of WebAssembly.Module.imports(module)) {
      expect(imp.kind).toBe('function');
      (imports[imp.module] ??= {})[imp.name] = () => {
        throw new Error(`stub import ${imp.module}.${imp.name} called`);
      };
    }
    const instance = new WebAssembly.Instance(module, imports);
    const gas = instance.exports[GAS_GLOBAL] as WasmGlobal;
    expect(gas.value).toBe(0n);
    gas.value = 300_000_000_000_000n;
    expect(gas.value).toBe(300_000_000_000_000n);
    expect(typeof instance.exports.swap).toBe('function');
  });

  it('metering is deterministic and leaves its input alone', () => {
    const wasm = loadWasm('ref_exchange_v1.9.17.wasm');
    const copy = wasm.slice();
    const a = meter(wasm, OP);
    const b = meter(wasm, OP);
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
    expect(Buffer.from(wasm).equals(Buffer.from(copy))).toBe(true);
  });
});

describe('meter: charges counted by hand (nearcore / finite-wasm rules)', () => {
  const metered = meter(handModule(), OP);

  it('validates, keeps the custom section, and puts the gas global after the imported and defined ones', () => {
    expect(WebAssembly.validate(metered)).toBe(true);
    const module = new WebAssembly.Module(metered);
    expect(WebAssembly.Module.customSections(module, 'name')).toHaveLength(1);
    expect(WebAssembly.Module.exports(module).at(-1)).toEqual({ name: GAS_GLOBAL, kind: 'global' });
  });

  for (const n of [0, 1, 5, 100]) {
    it(`a loop of ${n} iterations costs (13 N + 14) × op, and traps at -1 with one gas unit less`, () => {
      expectExactCharge(metered, 'loop', n, BigInt(13 * n + 14), 3 * n);
    });
  }

  it('if/else: 12 units on either arm', () => {
    expectExactCharge(metered, 'choose', 1, 12n, 1);
    expectExactCharge(metered, 'choose', 0, 12n, 2);
  });

  it('calls: the callee pays its own frame and code (38 units)', () => {
    expectExactCharge(metered, 'twice', 1, 38n, 2);
  });

  it('code after an unconditional branch is not charged (11 units)', () => {
    expectExactCharge(metered, 'dead', 0, 11n, 7);
  });

  it('memory.fill: 12 units, then 32 × op + n × op for the fill itself', () => {
    for (const n of [0, 1, 1000]) expectExactCharge(metered, 'fill', n, BigInt(12 + 32 + n), undefined);
    // With explicit linear costs (base 1000, unit 7): charged in gas, not in op units.
    const custom = meter(handModule(), OP, { linearOpBaseCost: 1000n, linearOpUnitCost: 7n });
    const { call, gas } = instantiate(custom);
    gas.value = 12n * OP + 1000n + 7n * 10n;
    call('fill', 10);
    expect(gas.value).toBe(0n);
    gas.value = 12n * OP + 1000n + 7n * 10n - 1n;
    expect(() => call('fill', 10)).toThrow(WebAssembly.RuntimeError);
    expect(gas.value).toBe(-1n);
  });

  it('a trap of the contract itself leaves the gas global non-negative', () => {
    const { call, gas } = instantiate(metered);
    gas.value = 100n * OP;
    expect(() => call('boom', 0)).toThrow(WebAssembly.RuntimeError);
    expect(gas.value).toBe(90n * OP);
  });

  it('adds the global and export sections when the module has neither', () => {
    const bare = assemble({ types: TYPES, funcs: [FUNCS[1]!], exports: false });
    const m = meter(bare, OP);
    expect(WebAssembly.validate(m)).toBe(true);
    const instance = new WebAssembly.Instance(new WebAssembly.Module(m));
    expect(Object.keys(instance.exports)).toEqual([GAS_GLOBAL]);
    expect((instance.exports[GAS_GLOBAL] as WasmGlobal).value).toBe(0n);
  });

  it('rejects a module that already exports the gas global', () => {
    const clash = assemble({ types: TYPES, funcs: [{ ...FUNCS[1]!, name: GAS_GLOBAL }] });
    expect(() => meter(clash, OP)).toThrow(/already exports/);
  });
});
