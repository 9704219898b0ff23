// The local solver relay: NEAR Intents' relay JSON-RPC (`POST /rpc`) for the realnet, quoting with the local
// solver's pricing (below: the best single AmmA simple pool, less a 0.3 % spread) over the AmmA pools the
// indexer holds (`pools` rows of dex 'AmmA'), so its prices follow the indexed chain. Methods:
// - `quote` [{defuse_asset_identifier_in, defuse_asset_identifier_out, exact_amount_in | exact_amount_out,
//   min_deadline_ms?}] -> a list of {quote_hash, defuse_asset_identifier_in, defuse_asset_identifier_out, amount_in,
//   amount_out, expiration_time}: one quote, or none when no pool holds the pair (or an asset is not `nep141:`).
//   quote_hash = base58(sha256(the request's fields and the priced pool's row)): the same request on the same pool
//   state gives the same hash.
// - `publish_intent` [{quote_hashes, signed_data}] -> {status: "OK", intent_hash}, intent_hash = base58(sha256 of
//   signed_data's JSON). Accepted only: the devnet's chain is seeded, nothing a client publishes executes on it.
// Errors are JSON-RPC 2.0 error objects (-32700 parse, -32600 invalid request, -32601 unknown method, -32602 invalid
// params, -32603 internal) with HTTP 200; other paths answer 404, other methods on /rpc 405.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Db } from '../db/connect.ts';
import { base58Encode } from '../near/base58.ts';
import { parseU128 } from '../near/units.ts';
import { simpleGetAmountIn, simpleGetAmountOut } from '../dexes/amm-a/math.ts';

const BPS = 10_000n;

/** What the solver keeps of the pool price: 0.3 % less output (or more input) than the best AmmA pool. */
export const SOLVER_SPREAD_BPS = 30n;
/** An AmmA simple pool as the solver sees it (the model's in-memory pools, or the relay's `pools` rows). */
export interface SolverPool {
  poolId: string | number;
  tokens: readonly string[];
  amounts: readonly bigint[];
  totalFee: number;
}

export interface SolverQuote {
  /** The pool the price came from. */
  pool: SolverPool;
  amountIn: bigint;
  amountOut: bigint;
}

/** The two-token pools holding both tokens, with the index of the input side. */
function pairPools(pools: readonly SolverPool[], tokenIn: string, tokenOut: string): Array<{ pool: SolverPool; i: number }> {
  if (tokenIn === tokenOut) return [];
  const out: Array<{ pool: SolverPool; i: number }> = [];
  for (const pool of pools) {
    if (pool.tokens.length !== 2 || pool.amounts.length !== 2) continue;
    const i = pool.tokens.indexOf(tokenIn);
    if (i === -1 || pool.tokens[1 - i] !== tokenOut) continue;
    if (pool.amounts[0]! <= 0n || pool.amounts[1]! <= 0n) continue;
    out.push({ pool, i });
  }
  return out;
}

/**
 * The solver's exact-in price: the best single pool's output (simple-pool formula) less the spread,
 * floor(out·(10000 − 30) / 10000); the first such pool wins a tie. Null when no pool holds the pair or nothing
 * would come out.
 */
export function solverQuoteExactIn(pools: readonly SolverPool[], tokenIn: string, tokenOut: string, amountIn: bigint): SolverQuote | null {
  if (amountIn <= 0n) return null;
  let best: SolverQuote | null = null;
  for (const { pool, i } of pairPools(pools, tokenIn, tokenOut)) {
    const gross = simpleGetAmountOut(pool.amounts[i]!, pool.amounts[1 - i]!, amountIn, pool.totalFee);
    const amountOut = (gross * (BPS - SOLVER_SPREAD_BPS)) / BPS;
    if (amountOut > 0n && (best === null || amountOut > best.amountOut)) best = { pool, amountIn, amountOut };
  }
  return best;
}

/**
 * The solver's exact-out price: the pool must give gross = ceil(out·10000 / (10000 − 30)) so that the spread
 * leaves `amountOut`; the input is the pool's exact-out formula for gross, the cheapest pool winning. Null when no
 * pool can give it.
 */
export function solverQuoteExactOut(pools: readonly SolverPool[], tokenIn: string, tokenOut: string, amountOut: bigint): SolverQuote | null {
  if (amountOut <= 0n) return null;
  const gross = (amountOut * BPS + (BPS - SOLVER_SPREAD_BPS) - 1n) / (BPS - SOLVER_SPREAD_BPS);
  let best: SolverQuote | null = null;
  for (const { pool, i } of pairPools(pools, tokenIn, tokenOut)) {
    const amountIn = simpleGetAmountIn(pool.amounts[i]!, pool.amounts[1 - i]!, gross, pool.totalFee);
    if (amountIn !== null && (best === null || amountIn < best.amountIn)) best = { pool, amountIn, amountOut };
  }
  return best;
}

export interface SolverRelayOptions {
  db: Db;
  host: string;
  /** 0: any free port. */
  port: number;
}

export interface SolverRelay {
  /** Base URL (`http://host:port`); the JSON-RPC endpoint is `${url}/rpc`. */
  url: string;
  close(): Promise<void>;
}

/** Default and ceiling of `min_deadline_ms` (the relay refuses waits above a minute, as the aggregator does). */
const DEFAULT_DEADLINE_MS = 60_000;
const MAX_DEADLINE_MS = 600_000;
const MAX_BODY_BYTES = 64 * 1024;
const NEP141 = 'nep141:';

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

type RpcId = string | number | null;

export async function startSolverRelay({ db, host, port }: SolverRelayOptions): Promise<SolverRelay> {
  const server = createServer((req, res) => void handle(db, req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${hostPart}:${address.port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

async function handle(db: Db, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0];
  if (path !== '/rpc') return sendJson(res, 404, { error: 'not found: the relay answers JSON-RPC at POST /rpc' });
  if (req.method !== 'POST') {
    res.setHeader('allow', 'POST');
    return sendJson(res, 405, { error: 'method not allowed: POST /rpc' });
  }
  let id: RpcId = null;
  try {
    const body = await readBody(req);
    let request: unknown;
    try {
      request = JSON.parse(body);
    } catch {
      throw new RpcError(PARSE_ERROR, 'Parse error');
    }
    const call = parseCall(request);
    id = call.id;
    const result = await dispatch(db, call.method, call.params);
    sendJson(res, 200, { jsonrpc: '2.0', id, result });
  } catch (err) {
    const error = err instanceof RpcError ? err : new RpcError(INTERNAL_ERROR, 'Internal error');
    sendJson(res, 200, { jsonrpc: '2.0', id, error: { code: error.code, message: error.message } });
  }
}

function parseCall(request: unknown): { id: RpcId; method: string; params: unknown } {
  const o = asRecord(request);
  if (o === null) throw new RpcError(INVALID_REQUEST, 'Invalid Request: expected a JSON-RPC 2.0 request object');
  const id = o.id;
  if (o.jsonrpc !== '2.0' || typeof o.method !== 'string' || !(id === undefined || id === null || typeof id === 'string' || typeof id === 'number')) {
    throw new RpcError(INVALID_REQUEST, 'Invalid Request: needs "jsonrpc": "2.0", a string "method" and a string or number "id"');
  }
  return { id: id ?? null, method: o.method, params: o.params };
}

async function dispatch(db: Db, method: string, params: unknown): Promise<unknown> {
  switch (method) {
    case 'quote':
      return quote(db, parseQuoteParams(params));
    case 'publish_intent':
      return publishIntent(params);
    default:
      throw new RpcError(METHOD_NOT_FOUND, `Method not found: ${method}`);
  }
}

interface QuoteRequest {
  assetIn: string;
  assetOut: string;
  exactAmountIn: bigint | null;
  exactAmountOut: bigint | null;
  minDeadlineMs: number;
}

/** `[{defuse_asset_identifier_in, defuse_asset_identifier_out, exact_amount_in | exact_amount_out, min_deadline_ms?}]`. */
function parseQuoteParams(params: unknown): QuoteRequest {
  const o = Array.isArray(params) && params.length === 1 ? asRecord(params[0]) : null;
  if (o === null) throw new RpcError(INVALID_PARAMS, 'Invalid params: expected [ {defuse_asset_identifier_in, defuse_asset_identifier_out, exact_amount_in | exact_amount_out} ]');
  const { defuse_asset_identifier_in: assetIn, defuse_asset_identifier_out: assetOut, min_deadline_ms: deadline } = o;
  if (typeof assetIn !== 'string' || typeof assetOut !== 'string' || assetIn === '' || assetOut === '') {
    throw new RpcError(INVALID_PARAMS, 'Invalid params: defuse_asset_identifier_in and defuse_asset_identifier_out must be asset ids such as nep141:wrap.near');
  }
  const hasIn = o.exact_amount_in !== undefined;
  const hasOut = o.exact_amount_out !== undefined;
  if (hasIn === hasOut) throw new RpcError(INVALID_PARAMS, 'Invalid params: give exactly one of exact_amount_in and exact_amount_out');
  const amount = parseU128(hasIn ? o.exact_amount_in : o.exact_amount_out);
  if (amount === null || amount === 0n) {
    throw new RpcError(INVALID_PARAMS, `Invalid params: ${hasIn ? 'exact_amount_in' : 'exact_amount_out'} must be a positive integer as a decimal string`);
  }
  if (deadline !== undefined && !(typeof deadline === 'number' && Number.isInteger(deadline) && deadline >= 0 && deadline <= MAX_DEADLINE_MS)) {
    throw new RpcError(INVALID_PARAMS, `Invalid params: min_deadline_ms must be an integer from 0 to ${MAX_DEADLINE_MS}`);
  }
  return {
    assetIn,
    assetOut,
    exactAmountIn: hasIn ? amount : null,
    exactAmountOut: hasOut ? amount : null,
    minDeadlineMs: typeof deadline === 'number' ? deadline : DEFAULT_DEADLINE_MS,
  };
}

async function quote(db: Db, request: QuoteRequest): Promise<unknown[]> {
  const { assetIn, assetOut } = request;
  if (!assetIn.startsWith(NEP141) || !assetOut.startsWith(NEP141)) return [];
  const tokenIn = assetIn.slice(NEP141.length);
  const tokenOut = assetOut.slice(NEP141.length);
  const pools = await ammAPools(db, tokenIn, tokenOut);
  const priced: SolverQuote | null =
    request.exactAmountIn !== null
      ? solverQuoteExactIn(pools, tokenIn, tokenOut, request.exactAmountIn)
      : solverQuoteExactOut(pools, tokenIn, tokenOut, request.exactAmountOut!);
  if (priced === null) return [];
  return [
    {
      quote_hash: quoteHash(request, priced.pool),
      defuse_asset_identifier_in: assetIn,
      defuse_asset_identifier_out: assetOut,
      amount_in: priced.amountIn.toString(),
      amount_out: priced.amountOut.toString(),
      expiration_time: new Date(Date.now() + request.minDeadlineMs).toISOString(),
    },
  ];
}

/** The indexed AmmA simple pools holding both tokens, by pool id. */
async function ammAPools(db: Db, tokenIn: string, tokenOut: string): Promise<SolverPool[]> {
  const rows = await db.kysely
    .selectFrom('pools')
    .select(['pool_id', 'tokens', 'amounts', 'total_fee'])
    .where('dex', '=', 'AmmA')
    .where('kind', '=', 'simple')
    .execute();
  return rows
    .filter((r) => r.tokens.includes(tokenIn) && r.tokens.includes(tokenOut))
    .map((r) => ({ poolId: r.pool_id, tokens: r.tokens, amounts: r.amounts.map((a) => BigInt(a)), totalFee: r.total_fee }))
    .sort((a, b) => Number(a.poolId) - Number(b.poolId) || (a.poolId < b.poolId ? -1 : a.poolId > b.poolId ? 1 : 0));
}

/** sha256 over the request and the state of the pool priced, base58: a quote is the same exactly when both are. */
function quoteHash(request: QuoteRequest, pool: SolverPool): string {
  const text = JSON.stringify({
    defuse_asset_identifier_in: request.assetIn,
    defuse_asset_identifier_out: request.assetOut,
    exact_amount_in: request.exactAmountIn?.toString() ?? null,
    exact_amount_out: request.exactAmountOut?.toString() ?? null,
    min_deadline_ms: request.minDeadlineMs,
    pool: { dex: 'AmmA', pool_id: String(pool.poolId), tokens: pool.tokens, amounts: pool.amounts.map(String), total_fee: pool.totalFee },
  });
  return base58Encode(createHash('sha256').update(text).digest());
}

function publishIntent(params: unknown): { status: 'OK'; intent_hash: string } {
  const o = Array.isArray(params) && params.length === 1 ? asRecord(params[0]) : null;
  const hashes = o?.quote_hashes;
  const signed = o === null ? null : asRecord(o.signed_data);
  if (o === null || !Array.isArray(hashes) || hashes.length === 0 || !hashes.every((h) => typeof h === 'string') || signed === null) {
    throw new RpcError(INVALID_PARAMS, 'Invalid params: expected [ {quote_hashes: [string, ...], signed_data: {...}} ]');
  }
  return { status: 'OK', intent_hash: base58Encode(createHash('sha256').update(JSON.stringify(signed)).digest()) };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new RpcError(INVALID_REQUEST, `Invalid Request: body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function asRecord(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}
