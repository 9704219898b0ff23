// Gas metering of NEAR contract wasm, the way nearcore meters it today, so a contract run in Node's WebAssembly
// burns the same wasm gas as on chain.
//
// What nearcore does (read for this file; written here from those descriptions, none of their code copied):
// - Since protocol 84 the runtime is Wasmtime (near/nearcore core/parameters/res/runtime_configs/84.yaml at
//   0b1af126ce531c64119f62d87947a02f0cc85538: `vm_kind: NearVm -> Wasmtime`, `reftypes_bulk_memory: true`,
//   `wasm_linear_op_base_cost: 26_328_192`, `wasm_linear_op_unit_cost: 822_756`), and for Wasmtime
//   runtime/near-vm-runner/src/prepare/prepare_v3.rs (same commit) runs finite-wasm 0.6's analysis with a cost
//   model where every instruction costs `regular_op_cost`, except `block`, `else` and `end` (0), and
//   `memory.init/copy/fill`, `table.init/copy/fill` (`linear_op_base_cost + linear_op_unit_cost × n`, n being
//   the byte/element count on top of the stack). `wasm_regular_op_cost` is 822_756: core/parameters/res/
//   runtime_configs/parameters.yaml (at 000b8da7e6faf48948e32764bb6b9c0a6e4ba562) and parameters.snap, the
//   current protocol's values (at 00fc9501c83c5fe1197bc0bc80958bf1e7cb7a5a). The older preparation (prepare_v1,
//   runtime/near-vm-runner/src/instrument/gas/mod.rs, pwasm-utils style inject_gas_counter) charged per metered block
//   that only branches end, calls included in the block; finite-wasm also ends a segment at every call, memory
//   access and other instruction that can trap, so a trap leaves exactly the gas of what ran.
// - Where charges go: near/finite-wasm src/gas/mod.rs and src/gas/optimize.rs at
//   a93bdb13560a6b86c89841d71018ec7e5e88f565 (0.6.0). Every instruction gets a charge point before it, of a
//   kind: pure (arithmetic, constants, locals, globals, select, drop, nop, memory.size, ref.*, data/elem.drop,
//   saturating truncations, `block`), side effect (loads, stores, div/rem, trapping float->int truncations,
//   call, call_indirect, table.get/set, `if`, `br`, `br_if`, `br_table`, `return`, and `end`/`else` of a frame
//   some branch targets; these also get a zero point after them), `loop` (charged *after* the opcode, so each
//   iteration pays it), `unreachable`, and the bulk operations (each charged on its own). Code after an
//   unconditional branch up to its frame's end is dead and not charged. Then points at one offset are merged,
//   and runs of points are merged into one charge: pure into pure, pure into a following side effect, and a
//   point after a side effect with the pure ones after it and the next side effect. So a charged segment ends
//   with (and includes) a call, branch, trap-capable or side-effecting instruction, and starts after one or at
//   a branch target. This file implements that table and those merge rules as finite-wasm states them.
// - runtime/near-vm-runner/src/prepare/instrument_v3.rs (at 0169d8c5cc387589871966349ef1b14dd04e59aa) also
//   charges, on entry to every function, ceil(frame / 8) × regular_op_cost, frame being 64 bytes plus the
//   parameters' and locals' sizes (i32/f32 4, i64/f64/ref 8, v128 16; `SimpleMaxStackCfg` in prepare_v3.rs).
//   Matched: it is added to the function's first charge (same place, same total).
// - A charge larger than the gas left (compared as u64, `i64.lt_u`) calls the host's `finite_wasm_gas` import
//   with the charge and then `unreachable` (instrument_v3.rs), and the host fails the call for gas. Here the code
//   instead sets the global to -1 and traps with `unreachable`; the host reads -1 as "gas exceeded".
//
// Left out: nearcore's operand-stack limit (`max_stack_height`, 262_144 bytes of operands + frames, checked at
// each function entry in instrument_v3.rs). It is not gas; here V8's own stack limit is what stops deep
// recursion, so such a contract fails with a RangeError instead of StackHeightExceeded. nearcore also moves a
// start function to an export; this file leaves a start section where it is (NEAR contracts have none), so
// one would run at instantiation, while the gas global still holds its initial 0, and trap.
//
// Not supported (rejected with an Error, as nearcore does not enable them either): SIMD (0xFD), threads (0xFE),
// tail calls, exceptions, GC types.

/** The exported mutable i64 global holding the gas left (in gas units). */
export const GAS_GLOBAL = 'dexlake_gas_left';

export interface MeterOptions {
  /** Constant part of memory.init/copy/fill and table.init/copy/fill (nearcore `wasm_linear_op_base_cost`).
   * Default 32 × opCost: on chain 26_328_192 = 32 × 822_756. */
  linearOpBaseCost?: bigint;
  /** Cost per byte (element) of those operations (nearcore `wasm_linear_op_unit_cost`). Default opCost. Must
   * stay below 2^30 so that count × unit + base cannot overflow an i64 in the inserted code. */
  linearOpUnitCost?: bigint;
}

/** `wasm` with every function charged, before each straight-line run of instructions, that run's cost
 * (instruction count × opCost, the way nearcore's current instrumentation counts) against GAS_GLOBAL, a new mutable
 * i64 global appended to the module's globals and exported under that name. When the charge would take it below zero
 * the code sets it to -1 and traps (`unreachable`), so the host can tell "gas exceeded" from any other trap. */
export function meter(wasm: Uint8Array, opCost: bigint, options: MeterOptions = {}): Uint8Array {
  return new Metering(wasm, opCost, options).run();
}

// ---------------------------------------------------------------------------------------------------------------
// Byte helpers

class Writer {
  buf: Uint8Array;
  len = 0;
  constructor(size = 256) {
    this.buf = new Uint8Array(size);
  }
  private room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }
  byte(b: number): void {
    this.room(1);
    this.buf[this.len++] = b;
  }
  bytes(src: Uint8Array): void {
    this.room(src.length);
    this.buf.set(src, this.len);
    this.len += src.length;
  }
  u32(v: number): void {
    this.room(5);
    do {
      let b = v & 0x7f;
      v >>>= 7;
      if (v !== 0) b |= 0x80;
      this.buf[this.len++] = b;
    } while (v !== 0);
  }
  /** Signed LEB128 of a bigint (i64.const immediates). */
  s64(v: bigint): void {
    for (;;) {
      const b = Number(v & 0x7fn);
      v >>= 7n;
      const done = (v === 0n && (b & 0x40) === 0) || (v === -1n && (b & 0x40) !== 0);
      this.byte(done ? b : b | 0x80);
      if (done) return;
    }
  }
  done(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

function u32Bytes(v: number): Uint8Array {
  const w = new Writer();
  w.u32(v);
  return w.done();
}

function nameBytes(s: string): Uint8Array {
  const utf8 = new TextEncoder().encode(s);
  const w = new Writer();
  w.u32(utf8.length);
  w.bytes(utf8);
  return w.done();
}

// Charge-point kinds (finite-wasm's InstrumentationKind).
const PURE = 0;
const UNREACHABLE = 1;
const PRE = 2; // before a control-flow / side-effect instruction
const POST = 3; // after one
const BETWEEN = 4; // both
const MEMORY_GROW = 5;
const MEMORY_INIT = 6;
const MEMORY_COPY = 7;
const MEMORY_FILL = 8;
const TABLE_INIT = 9;
const TABLE_GROW = 10;
const TABLE_FILL = 11;
const TABLE_COPY = 12;

// What a branch to a frame does (finite-wasm's BranchTargetKind).
const UNTAKEN = 0; // forward, no branch seen yet
const FORWARD = 1; // forward, some branch targets its end
const LOOP = 2; // backwards, to after the `loop` opcode

const SECTION_RANK: Record<number, number> = { 1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 13: 6, 6: 7, 7: 8, 8: 9, 9: 10, 12: 11, 10: 12, 11: 13 };

function valueSize(t: number): number {
  switch (t) {
    case 0x7f: // i32
    case 0x7d: // f32
      return 4;
    case 0x7e: // i64
    case 0x7c: // f64
    case 0x70: // funcref
    case 0x6f: // externref
      return 8;
    case 0x7b: // v128
      return 16;
    default:
      throw new Error(`meter: unsupported value type 0x${t.toString(16)}`);
  }
}

/** Non-saturating numeric instructions that can trap: integer div/rem and float->int truncations. */
const TRAPPING_NUMERIC = new Set([0x6d, 0x6e, 0x6f, 0x70, 0x7f, 0x80, 0x81, 0x82, 0xa8, 0xa9, 0xaa, 0xab, 0xae, 0xaf, 0xb0, 0xb1]);

interface Section {
  id: number;
  start: number; // of the section id byte
  payload: number;
  end: number;
}

class Metering {
  private readonly b: Uint8Array;
  private p = 0;
  private readonly opCost: bigint;
  private readonly linearBase: bigint;
  private readonly linearUnit: bigint;

  // Module facts.
  private typeParams: { count: number; bytes: number }[] = [];
  private funcTypes: number[] = [];
  private importedGlobals = 0;
  private definedGlobals = 0;
  private gasGlobal = 0;
  private gasGlobalLeb: Uint8Array = new Uint8Array(0);
  private readonly chargeCache = new Map<number, Uint8Array>();

  // Per-function charge table (finite-wasm's FunctionState), reused between functions.
  private offs: number[] = [];
  private kinds: number[] = [];
  private units: number[] = []; // cost in opCost units
  private bases: number[] = []; // cost in linearBase units
  private linear: boolean[] = []; // plus linearUnit × count on the stack
  private n = 0;
  private schedKind = -1;
  private schedUnits = 0;
  private fKind: number[] = [];
  private fPoly: boolean[] = [];
  private fPre: number[] = [];
  private fPost: number[] = [];
  private top = 0;

  constructor(wasm: Uint8Array, opCost: bigint, options: MeterOptions) {
    this.b = wasm;
    this.opCost = opCost;
    this.linearBase = options.linearOpBaseCost ?? 32n * opCost;
    this.linearUnit = options.linearOpUnitCost ?? opCost;
    if (opCost < 0n || this.linearBase < 0n || this.linearUnit < 0n) throw new Error('meter: negative cost');
    if (this.linearUnit >= 1n << 30n) throw new Error('meter: linearOpUnitCost must be below 2^30');
    if (this.linearBase >= 1n << 62n) throw new Error('meter: linearOpBaseCost must be below 2^62');
  }

  // --- reading -------------------------------------------------------------------------------------------------

  private fail(what: string): never {
    throw new Error(`meter: ${what} at byte ${this.p}`);
  }

  private byte(): number {
    if (this.p >= this.b.length) this.fail('unexpected end');
    return this.b[this.p++]!;
  }

  private u32(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const x = this.byte();
      if (shift === 28 && x > 0x0f) this.fail('u32 out of range');
      result |= (x & 0x7f) << shift;
      if ((x & 0x80) === 0) return result >>> 0;
      shift += 7;
    }
  }

  /** Skips a LEB128 of up to 10 bytes (s32, s64, u64). */
  private skipLeb(): void {
    for (let i = 0; i < 10; i++) if ((this.byte() & 0x80) === 0) return;
    this.fail('LEB128 too long');
  }

  private skipLimits(): void {
    const flags = this.byte();
    this.skipLeb();
    if (flags & 1) this.skipLeb();
  }

  private skipBlockType(): void {
    const t = this.b[this.p];
    if (t === 0x40 || t === 0x7f || t === 0x7e || t === 0x7d || t === 0x7c || t === 0x7b || t === 0x70 || t === 0x6f) {
      this.p++;
      return;
    }
    this.skipLeb(); // s33 type index (multi-value)
  }

  private skipMemarg(): void {
    const align = this.u32();
    if (align & 0x40) this.u32(); // memory index (multi-memory encoding)
    this.skipLeb(); // offset
  }

  // --- module ----------------------------------------------------------------------------------------------------

  run(): Uint8Array {
    const b = this.b;
    if (b.length < 8 || b[0] !== 0 || b[1] !== 0x61 || b[2] !== 0x73 || b[3] !== 0x6d) this.fail('not a wasm module');
    if (b[4] !== 1 || b[5] !== 0 || b[6] !== 0 || b[7] !== 0) this.fail('unsupported wasm version');
    this.p = 8;
    const sections: Section[] = [];
    while (this.p < b.length) {
      const start = this.p;
      const id = this.byte();
      const size = this.u32();
      const payload = this.p;
      const end = payload + size;
      if (end > b.length) this.fail('section runs past the end');
      if (id !== 0 && SECTION_RANK[id] === undefined) this.fail(`unknown section ${id}`);
      sections.push({ id, start, payload, end });
      this.p = end;
    }
    for (const s of sections) {
      this.p = s.payload;
      if (s.id === 1) this.readTypes(s.end);
      else if (s.id === 2) this.readImports(s.end);
      else if (s.id === 3) for (let i = 0, c = this.u32(); i < c; i++) this.funcTypes.push(this.u32());
      else if (s.id === 6) this.definedGlobals = this.u32();
      else if (s.id === 7) this.checkExports();
    }
    this.gasGlobal = this.importedGlobals + this.definedGlobals;
    this.gasGlobalLeb = u32Bytes(this.gasGlobal);

    // The new global: mutable i64, initially 0 (the host sets it before each call).
    const globalEntry = new Uint8Array([0x7e, 0x01, 0x42, 0x00, 0x0b]);
    const exportEntry = new Writer();
    exportEntry.bytes(nameBytes(GAS_GLOBAL));
    exportEntry.byte(0x03);
    exportEntry.u32(this.gasGlobal);
    const exportBytes = exportEntry.done();

    const out = new Writer(b.length * 4 + 1024);
    out.bytes(b.subarray(0, 8));
    const hasGlobal = sections.some((s) => s.id === 6);
    const hasExport = sections.some((s) => s.id === 7);
    const emitSection = (id: number, payload: Uint8Array): void => {
      out.byte(id);
      out.u32(payload.length);
      out.bytes(payload);
    };
    const newVecSection = (entry: Uint8Array): Uint8Array => {
      const w = new Writer();
      w.u32(1);
      w.bytes(entry);
      return w.done();
    };
    const appendToVec = (s: Section, entry: Uint8Array): Uint8Array => {
      this.p = s.payload;
      const count = this.u32();
      const w = new Writer();
      w.u32(count + 1);
      w.bytes(b.subarray(this.p, s.end));
      w.bytes(entry);
      return w.done();
    };
    let globalDone = hasGlobal;
    let exportDone = hasExport;
    for (const s of sections) {
      const rank = s.id === 0 ? 0 : SECTION_RANK[s.id]!;
      if (!globalDone && rank > SECTION_RANK[6]!) {
        emitSection(6, newVecSection(globalEntry));
        globalDone = true;
      }
      if (!exportDone && rank > SECTION_RANK[7]!) {
        emitSection(7, newVecSection(exportBytes));
        exportDone = true;
      }
      if (s.id === 6) emitSection(6, appendToVec(s, globalEntry));
      else if (s.id === 7) emitSection(7, appendToVec(s, exportBytes));
      else if (s.id === 10) emitSection(10, this.rewriteCode(s));
      else out.bytes(b.subarray(s.start, s.end));
    }
    if (!globalDone) emitSection(6, newVecSection(globalEntry));
    if (!exportDone) emitSection(7, newVecSection(exportBytes));
    return out.done();
  }

  private readTypes(end: number): void {
    const count = this.u32();
    for (let i = 0; i < count; i++) {
      if (this.byte() !== 0x60) this.fail('only function types are supported');
      const params = this.u32();
      let bytes = 0;
      for (let j = 0; j < params; j++) bytes += valueSize(this.byte());
      const results = this.u32();
      for (let j = 0; j < results; j++) valueSize(this.byte());
      this.typeParams.push({ count: params, bytes });
    }
    if (this.p !== end) this.fail('type section size mismatch');
  }

  private readImports(end: number): void {
    const count = this.u32();
    for (let i = 0; i < count; i++) {
      const moduleLen = this.u32();
      this.p += moduleLen;
      const nameLen = this.u32();
      this.p += nameLen;
      const kind = this.byte();
      if (kind === 0x00) this.u32();
      else if (kind === 0x01) {
        this.byte();
        this.skipLimits();
      } else if (kind === 0x02) this.skipLimits();
      else if (kind === 0x03) {
        this.byte();
        this.byte();
        this.importedGlobals++;
      } else this.fail(`unsupported import kind ${kind}`);
    }
    if (this.p !== end) this.fail('import section size mismatch');
  }

  private checkExports(): void {
    const count = this.u32();
    const decoder = new TextDecoder();
    for (let i = 0; i < count; i++) {
      const len = this.u32();
      const name = decoder.decode(this.b.subarray(this.p, this.p + len));
      this.p += len;
      this.byte();
      this.u32();
      if (name === GAS_GLOBAL) this.fail(`the module already exports ${GAS_GLOBAL}`);
    }
  }

  // --- code ------------------------------------------------------------------------------------------------------

  private rewriteCode(s: Section): Uint8Array {
    this.p = s.payload;
    const count = this.u32();
    if (count !== this.funcTypes.length) this.fail('function and code section counts differ');
    const w = new Writer(Math.ceil((s.end - s.payload) * 4) + 1024);
    w.u32(count);
    const body = new Writer(1 << 16);
    for (let i = 0; i < count; i++) {
      const size = this.u32();
      const bodyStart = this.p;
      const bodyEnd = bodyStart + size;
      if (bodyEnd > s.end) this.fail('function body runs past the code section');
      const type = this.typeParams[this.funcTypes[i]!];
      if (!type) this.fail('function type index out of range');
      // Locals and the frame size (64 + params + locals, in bytes).
      let frame = 64 + type.bytes;
      let localCount = type.count;
      const declCount = this.u32();
      const declStart = this.p;
      for (let j = 0; j < declCount; j++) {
        const c = this.u32();
        frame += c * valueSize(this.byte());
        localCount += c;
      }
      const codeStart = this.p;
      this.analyze(codeStart, bodyEnd);
      const needsScratch = this.addFrameCharge(Math.ceil(frame / 8));

      body.len = 0;
      if (needsScratch) {
        body.u32(declCount + 2);
        body.bytes(this.b.subarray(declStart, codeStart));
        body.bytes(new Uint8Array([1, 0x7e, 1, 0x7f])); // scratch: i64 charge, i32 count
      } else {
        body.bytes(this.b.subarray(bodyStart, codeStart));
      }
      let copied = codeStart;
      for (let k = 0; k < this.n; k++) {
        if (this.kinds[k] === UNREACHABLE) continue;
        const isLinear = this.linear[k]! && this.linearUnit !== 0n;
        let code: Uint8Array | undefined;
        if (!isLinear && this.bases[k] === 0) {
          // The common case: a whole number of op costs. The same few sequences recur, so they are encoded once.
          const units = this.units[k]!;
          if (units === 0) continue;
          code = this.chargeCache.get(units);
          if (!code) {
            code = this.chargeCode(BigInt(units) * this.opCost);
            this.chargeCache.set(units, code);
          }
        } else {
          const constant = BigInt(this.units[k]!) * this.opCost + BigInt(this.bases[k]!) * this.linearBase;
          if (constant === 0n && !isLinear) continue;
          code = isLinear ? this.linearChargeCode(constant, localCount) : this.chargeCode(constant);
        }
        const at = this.offs[k]!;
        body.bytes(this.b.subarray(copied, at));
        copied = at;
        body.bytes(code);
      }
      body.bytes(this.b.subarray(copied, bodyEnd));
      w.u32(body.len);
      w.bytes(body.buf.subarray(0, body.len));
      this.p = bodyEnd;
    }
    if (this.p !== s.end) this.fail('code section size mismatch');
    return w.done();
  }

  /** Adds the function-entry charge to the first charge point (both sit before the first instruction). Returns
   * whether the function has a linear charge, which needs the two scratch locals. */
  private addFrameCharge(frameUnits: number): boolean {
    const first = 0;
    if (this.n > 0 && this.kinds[first] !== UNREACHABLE && !this.linear[first]) {
      this.units[first] = this.units[first]! + frameUnits;
    } else {
      // Cannot happen for valid code (the first instruction is reachable and is not a bulk operation), kept exact.
      this.offs.unshift(this.offs[0] ?? 0);
      this.kinds.unshift(PRE);
      this.units.unshift(frameUnits);
      this.bases.unshift(0);
      this.linear.unshift(false);
      this.n++;
    }
    for (let k = 0; k < this.n; k++) if (this.linear[k] && this.kinds[k] !== UNREACHABLE) return this.linearUnit !== 0n;
    return false;
  }

  private checkI64(v: bigint): void {
    if (v >= 1n << 63n) throw new Error('meter: a charge does not fit an i64');
  }

  /** global.get g; i64.const c; i64.lt_u; if; i64.const -1; global.set g; unreachable; end;
   *  global.get g; i64.const c; i64.sub; global.set g */
  private chargeCode(c: bigint): Uint8Array {
    this.checkI64(c);
    const w = new Writer(64);
    const g = this.gasGlobalLeb;
    w.byte(0x23);
    w.bytes(g);
    w.byte(0x42);
    w.s64(c);
    w.byte(0x54);
    w.byte(0x04);
    w.byte(0x40);
    w.byte(0x42);
    w.byte(0x7f);
    w.byte(0x24);
    w.bytes(g);
    w.byte(0x00);
    w.byte(0x0b);
    w.byte(0x23);
    w.bytes(g);
    w.byte(0x42);
    w.s64(c);
    w.byte(0x7d);
    w.byte(0x24);
    w.bytes(g);
    return w.done();
  }

  /** With the count n (i32) on top of the stack, charges c + n × linearUnit and leaves n where it was:
   *  local.tee $n; i64.extend_i32_u; i64.const unit; i64.mul; i64.const c; i64.add; local.tee $charge;
   *  global.get g; i64.gt_u; if; i64.const -1; global.set g; unreachable; end;
   *  global.get g; local.get $charge; i64.sub; global.set g; local.get $n */
  private linearChargeCode(c: bigint, localCount: number): Uint8Array {
    this.checkI64(c);
    const w = new Writer(96);
    const g = this.gasGlobalLeb;
    const charge = localCount;
    const count = localCount + 1;
    w.byte(0x22);
    w.u32(count);
    w.byte(0xad);
    w.byte(0x42);
    w.s64(this.linearUnit);
    w.byte(0x7e);
    w.byte(0x42);
    w.s64(c);
    w.byte(0x7c);
    w.byte(0x22);
    w.u32(charge);
    w.byte(0x23);
    w.bytes(g);
    w.byte(0x56);
    w.byte(0x04);
    w.byte(0x40);
    w.byte(0x42);
    w.byte(0x7f);
    w.byte(0x24);
    w.bytes(g);
    w.byte(0x00);
    w.byte(0x0b);
    w.byte(0x23);
    w.bytes(g);
    w.byte(0x20);
    w.u32(charge);
    w.byte(0x7d);
    w.byte(0x24);
    w.bytes(g);
    w.byte(0x20);
    w.u32(count);
    return w.done();
  }

  // --- the analysis (finite-wasm's gas Visitor) --------------------------------------------------------------------

  private push(off: number, kind: number, units: number, bases: number, linear: boolean): void {
    const k = this.n++;
    this.offs[k] = off;
    this.kinds[k] = kind;
    this.units[k] = units;
    this.bases[k] = bases;
    this.linear[k] = linear;
  }

  private before(off: number, kind: number, units: number): void {
    this.push(off, this.fPoly[this.top] ? UNREACHABLE : kind, units, 0, false);
  }

  private sideEffect(off: number, units: number): void {
    this.before(off, PRE, units);
    this.schedKind = POST;
    this.schedUnits = 0;
  }

  private newFrame(kind: number, pre = -1, post = -1): void {
    const poly = this.fPoly[this.top]!;
    const t = ++this.top;
    this.fKind[t] = kind;
    this.fPoly[t] = poly;
    this.fPre[t] = pre;
    this.fPost[t] = post;
  }

  private endFrame(): void {
    if (this.top > 0) this.top--;
  }

  private branchTo(depth: number): void {
    if (depth > this.top) this.fail('branch depth out of range');
    const f = this.top - depth;
    const kind = this.fKind[f]!;
    if (kind === UNTAKEN) this.fKind[f] = FORWARD;
    else if (kind === LOOP) {
      this.kinds[this.fPost[f]!] = POST;
      this.kinds[this.fPre[f]!] = PRE;
    }
  }

  private bulk(off: number, kind: number): void {
    const linear = this.linearUnit !== 0n;
    this.push(off, this.fPoly[this.top] ? UNREACHABLE : kind, 0, 1, linear);
    this.schedKind = POST;
    this.schedUnits = 0;
  }

  /** Builds the optimized charge table of one function body's code (from after its locals to its end). */
  private analyze(start: number, end: number): void {
    this.n = 0;
    this.schedKind = -1;
    this.top = 0;
    this.fKind[0] = UNTAKEN;
    this.fPoly[0] = false;
    this.fPre[0] = -1;
    this.fPost[0] = -1;
    this.p = start;
    let depth = 0;
    for (;;) {
      if (this.p >= end) this.fail('function body without its final end');
      const off = this.p;
      if (this.schedKind >= 0) {
        this.push(off, this.schedKind, this.schedUnits, 0, false);
        this.schedKind = -1;
      }
      const op = this.b[this.p++]!;
      switch (op) {
        case 0x00: // unreachable
          this.before(off, PRE, 1);
          this.schedKind = UNREACHABLE;
          this.schedUnits = 0;
          this.fPoly[this.top] = true;
          break;
        case 0x01: // nop
          this.before(off, PURE, 1);
          break;
        case 0x02: // block
          this.skipBlockType();
          this.before(off, PURE, 0);
          this.newFrame(UNTAKEN);
          depth++;
          break;
        case 0x03: {
          // loop: nothing before it; its own cost right after it, inside the loop, so every iteration pays it.
          this.skipBlockType();
          const pre = this.n;
          this.before(off, PURE, 0);
          const post = this.n; // the index the scheduled point gets at the next instruction
          this.schedKind = PURE;
          this.schedUnits = 1;
          this.newFrame(LOOP, pre, post);
          depth++;
          break;
        }
        case 0x04: // if
          this.skipBlockType();
          this.sideEffect(off, 1);
          this.newFrame(FORWARD);
          depth++;
          break;
        case 0x05: // else
          this.endFrame();
          this.newFrame(FORWARD);
          this.sideEffect(off, 0);
          break;
        case 0x0b: // end
          if (this.fKind[this.top] === FORWARD) this.sideEffect(off, 0);
          else this.before(off, PURE, 0);
          this.endFrame();
          if (depth === 0) {
            if (this.p !== end) this.fail('code after the final end');
            this.optimize();
            return;
          }
          depth--;
          break;
        case 0x0c: // br
          this.sideEffect(off, 1);
          this.branchTo(this.u32());
          this.fPoly[this.top] = true;
          break;
        case 0x0d: // br_if
          this.sideEffect(off, 1);
          this.branchTo(this.u32());
          break;
        case 0x0e: {
          // br_table
          this.sideEffect(off, 1);
          const c = this.u32();
          for (let i = 0; i < c; i++) this.branchTo(this.u32());
          this.branchTo(this.u32());
          this.fPoly[this.top] = true;
          break;
        }
        case 0x0f: // return
          this.sideEffect(off, 1);
          this.branchTo(this.top);
          this.fPoly[this.top] = true;
          break;
        case 0x10: // call
          this.u32();
          this.sideEffect(off, 1);
          break;
        case 0x11: // call_indirect
          this.u32();
          this.u32();
          this.sideEffect(off, 1);
          break;
        case 0x1a: // drop
        case 0x1b: // select
          this.before(off, PURE, 1);
          break;
        case 0x1c: {
          // select t*
          const c = this.u32();
          for (let i = 0; i < c; i++) valueSize(this.byte());
          this.before(off, PURE, 1);
          break;
        }
        case 0x20: // local.get
        case 0x21: // local.set
        case 0x22: // local.tee
        case 0x23: // global.get
        case 0x24: // global.set
          this.u32();
          this.before(off, PURE, 1);
          break;
        case 0x25: // table.get
        case 0x26: // table.set
          this.u32();
          this.sideEffect(off, 1);
          break;
        case 0x3f: // memory.size
          this.u32();
          this.before(off, PURE, 1);
          break;
        case 0x40: // memory.grow
          this.u32();
          this.before(off, MEMORY_GROW, 1);
          this.schedKind = POST;
          this.schedUnits = 0;
          break;
        case 0x41: // i32.const
        case 0x42: // i64.const
          this.skipLeb();
          this.before(off, PURE, 1);
          break;
        case 0x43: // f32.const
          this.p += 4;
          this.before(off, PURE, 1);
          break;
        case 0x44: // f64.const
          this.p += 8;
          this.before(off, PURE, 1);
          break;
        case 0xd0: // ref.null
          this.skipLeb();
          this.before(off, PURE, 1);
          break;
        case 0xd1: // ref.is_null
          this.before(off, PURE, 1);
          break;
        case 0xd2: // ref.func
          this.u32();
          this.before(off, PURE, 1);
          break;
        case 0xfc:
          this.prefixed(off);
          break;
        default:
          if (op >= 0x28 && op <= 0x3e) {
            // loads and stores
            this.skipMemarg();
            this.sideEffect(off, 1);
          } else if (op >= 0x45 && op <= 0xc4) {
            // numeric (0xC0-0xC4: sign extension)
            if (TRAPPING_NUMERIC.has(op)) this.sideEffect(off, 1);
            else this.before(off, PURE, 1);
          } else if (op === 0xfd) {
            this.fail('SIMD instruction (nearcore does not enable SIMD)');
          } else {
            this.fail(`unsupported opcode 0x${op.toString(16)}`);
          }
      }
    }
  }

  private prefixed(off: number): void {
    const sub = this.u32();
    if (sub <= 7) {
      this.before(off, PURE, 1); // saturating float->int
      return;
    }
    switch (sub) {
      case 8: // memory.init data mem
        this.u32();
        this.u32();
        this.bulk(off, MEMORY_INIT);
        return;
      case 9: // data.drop
        this.u32();
        this.before(off, PURE, 1);
        return;
      case 10: // memory.copy mem mem
        this.u32();
        this.u32();
        this.bulk(off, MEMORY_COPY);
        return;
      case 11: // memory.fill mem
        this.u32();
        this.bulk(off, MEMORY_FILL);
        return;
      case 12: // table.init elem table
        this.u32();
        this.u32();
        this.bulk(off, TABLE_INIT);
        return;
      case 13: // elem.drop
        this.u32();
        this.before(off, PURE, 1);
        return;
      case 14: // table.copy table table
        this.u32();
        this.u32();
        this.bulk(off, TABLE_COPY);
        return;
      case 15: // table.grow
        this.u32();
        this.before(off, TABLE_GROW, 1);
        this.schedKind = POST;
        this.schedUnits = 0;
        return;
      case 16: // table.size
        this.u32();
        this.before(off, PURE, 1);
        return;
      case 17: // table.fill
        this.u32();
        this.bulk(off, TABLE_FILL);
        return;
      default:
        this.fail(`unsupported opcode 0xfc ${sub}`);
    }
  }

  // --- merging (finite-wasm's gas/optimize.rs) ----------------------------------------------------------------------

  /** Kind of two points at the same offset merged into one. */
  private static sameOffsetKind(a: number, b: number): number {
    if (a === UNREACHABLE || b === UNREACHABLE) return UNREACHABLE;
    if (a >= MEMORY_GROW) throw new Error('meter: internal error, a bulk-operation point precedes another at its offset');
    if (b >= MEMORY_GROW) return b;
    switch (a) {
      case PURE:
        return b;
      case PRE:
        return b === PRE || b === PURE ? PRE : BETWEEN;
      case POST:
        return b === POST || b === PURE ? POST : BETWEEN;
      default:
        return BETWEEN;
    }
  }

  /** Kind of a point merged with the next one across instructions, or -1 when they stay apart. */
  private static acrossKind(a: number, b: number): number {
    if (a === PURE && b === PURE) return PURE;
    if (a === UNREACHABLE && b === UNREACHABLE) return UNREACHABLE;
    if (a === POST && b === PRE) return BETWEEN;
    if (a === PURE && b === PRE) return PRE;
    if (a === POST && b === PURE) return POST;
    return -1;
  }

  private optimize(): void {
    this.mergePass(true);
    this.mergePass(false);
  }

  private mergePass(sameOffset: boolean): void {
    const { offs, kinds, units, bases, linear } = this;
    if (this.n === 0) return;
    let out = 0;
    for (let i = 1; i < this.n; i++) {
      let kind = -1;
      // Fees with a linear part never merge (finite-wasm's Fee::checked_add).
      if (!linear[out] && !linear[i]) {
        if (sameOffset) {
          if (offs[out] === offs[i]) kind = Metering.sameOffsetKind(kinds[out]!, kinds[i]!);
        } else {
          kind = Metering.acrossKind(kinds[out]!, kinds[i]!);
        }
      }
      if (kind >= 0) {
        kinds[out] = kind;
        units[out] = units[out]! + units[i]!;
        bases[out] = bases[out]! + bases[i]!;
      } else {
        out++;
        offs[out] = offs[i]!;
        kinds[out] = kinds[i]!;
        units[out] = units[i]!;
        bases[out] = bases[i]!;
        linear[out] = linear[i]!;
      }
    }
    this.n = out + 1;
  }
}
