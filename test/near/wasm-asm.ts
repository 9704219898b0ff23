// A tiny wasm assembler for the near/vm tests that need a contract calling host functions in ways no release
// contract does: every imported host function takes i64 parameters, every exported method takes and returns
// nothing and has one i64 local; the module imports nearcore's `env.memory`.

export const uleb = (n: number | bigint): number[] => {
  let v = BigInt(n);
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) b |= 0x80;
    out.push(b);
  } while (v !== 0n);
  return out;
};

export const sleb = (n: number | bigint): number[] => {
  let v = BigInt(n);
  const out: number[] = [];
  for (;;) {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    const done = (v === 0n && (b & 0x40) === 0) || (v === -1n && (b & 0x40) !== 0);
    out.push(done ? b : b | 0x80);
    if (done) return out;
  }
};

const str = (s: string): number[] => [...uleb(s.length), ...Buffer.from(s)];
const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
const I64 = 0x7e;

/** Host functions by name: [number of i64 parameters, whether it returns an i64]. */
export type HostTable = Record<string, readonly [number, boolean]>;

/** Instructions for a module importing `host`: `i64.const`, `call` by host name, `drop`. */
export function instructions(host: HostTable) {
  const names = Object.keys(host);
  return {
    i64: (v: number | bigint): number[] => [0x42, ...sleb(v)],
    call: (name: string): number[] => {
      const at = names.indexOf(name);
      if (at < 0) throw new Error(`wasm-asm: ${name} is not imported`);
      return [0x10, ...uleb(at)];
    },
    DROP: [0x1a],
  };
}

/** The module: `host` imported from env (in that order), `methods` exported, memory initialised from `data`. */
export function assemble(host: HostTable, methods: Record<string, number[]>, data: [number, Uint8Array][]): Uint8Array {
  const names = Object.keys(host);
  const hostTypes = names.map((n) => [0x60, ...vec(Array.from({ length: host[n]![0] }, () => [I64])), ...(host[n]![1] ? [1, I64] : [0])]);
  const voidType = hostTypes.length;
  const methodNames = Object.keys(methods);
  const bodies = methodNames.map((m) => {
    const body = [...vec([[1, I64]]), ...methods[m]!, 0x0b];
    return [...uleb(body.length), ...body];
  });
  return new Uint8Array([
    0, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
    ...section(1, vec([...hostTypes, [0x60, 0, 0]])),
    ...section(2, vec([...names.map((n, i) => [...str('env'), ...str(n), 0, ...uleb(i)]), [...str('env'), ...str('memory'), 2, 0, 1]])),
    ...section(3, vec(methodNames.map(() => uleb(voidType)))),
    ...section(7, vec(methodNames.map((m, i) => [...str(m), 0, ...uleb(names.length + i)]))),
    ...section(10, vec(bodies)),
    ...section(11, vec(data.map(([at, bytes]) => [0, 0x41, ...sleb(at), 0x0b, ...uleb(bytes.length), ...bytes]))),
  ]);
}
