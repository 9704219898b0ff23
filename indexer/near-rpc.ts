// A small NEAR JSON-RPC client for contract view calls (ft_metadata...), used when NEAR_RPC_URL is set. Global fetch.
//
// What we rely on (docs.near.org/api/rpc/contracts "Call a contract function", docs.near.org/api/rpc/errors, and
// nearcore's chain/jsonrpc `process_query_response`):
// - Request: POST {"jsonrpc":"2.0","id":..,"method":"query","params":{"request_type":"call_function",
//   "finality":"final"|"optimistic","account_id","method_name","args_base64"}}.
// - Answer: {"result":{"result":[bytes],"logs":[],"block_height","block_hash"}}; near-sdk contracts put their JSON
//   return value in those bytes.
// - Errors follow verror: {"error":{"name":"HANDLER_ERROR","cause":{"name":"UNKNOWN_ACCOUNT","info":{..}},
//   "code":-32000,"message":"Server error","data":".."}}. code/message/data are legacy ("don't rely on them"), so we
//   key on cause.name. HANDLER_ERROR comes with HTTP 200, REQUEST_VALIDATION_ERROR with 400, INTERNAL_ERROR with 500
//   ("try again later"). call_function's causes include UNKNOWN_ACCOUNT, INVALID_ACCOUNT, NO_CONTRACT_CODE and
//   CONTRACT_EXECUTION_ERROR.
// - Except that nearcore still reports CONTRACT_EXECUTION_ERROR the old way, for backward compatibility: HTTP 200 and
//   {"result":{"error":"wasm execution failed with error: MethodResolveError(MethodNotFound)","logs":[],..}}
//   (older nodes: "...FunctionCallError(MethodResolveError(MethodNotFound))"). We accept both forms.

import { z } from 'zod';
import { backoffDelay, sleep } from './sources/retry.ts';
import type { FtMetadata } from '../near/events.ts';

export interface ViewOptions {
  /** Aborting it rejects the call at once with the signal's reason (no retry). */
  signal?: AbortSignal;
  /** Bound of each attempt (default 10 s): a node that accepts and never answers must not stall the indexer. */
  timeoutMs?: number;
  /** Further attempts after a network error, a timeout or HTTP 408/429/5xx (default 3). */
  retries?: number;
  finality?: 'final' | 'optimistic';
}

const DEFAULTS = { timeoutMs: 10_000, retries: 3 };
const BACKOFF = { initialMs: 250, maxMs: 5_000 };
/** A longer Retry-After ends the retries: better to fail now and let the caller come back than to block it. */
const MAX_RETRY_AFTER_MS = 30_000;

/** A view call that failed: an answer from NEAR about the contract, or (`transient`) no usable answer at all. */
export class RpcError extends Error {
  override readonly name = 'RpcError';
  readonly contractId: string;
  readonly methodName: string;
  /**
   * NEAR's cause (UNKNOWN_ACCOUNT, CONTRACT_EXECUTION_ERROR...), or ours: HTTP_<status>, NETWORK, TIMEOUT,
   * BAD_RESPONSE, NOT_JSON.
   */
  readonly causeName: string;
  /** The node's details: cause.info as JSON, the VM error string, or the start of an unexpected body. */
  readonly detail: string;
  /** Worth asking again later (overloaded or unreachable node), as opposed to an answer about the contract. */
  readonly transient: boolean;
  /** How long the server asked us to wait (HTTP 429/503 Retry-After). */
  readonly retryAfterMs: number | null;

  constructor(e: {
    contractId: string;
    methodName: string;
    causeName: string;
    detail: string;
    transient?: boolean;
    retryAfterMs?: number | null;
    cause?: unknown;
  }) {
    const detail = e.detail ? ` (${e.detail})` : '';
    super(`view ${e.contractId}.${e.methodName}: ${e.causeName}${detail}`, { cause: e.cause });
    this.contractId = e.contractId;
    this.methodName = e.methodName;
    this.causeName = e.causeName;
    this.detail = e.detail;
    this.transient = e.transient ?? false;
    this.retryAfterMs = e.retryAfterMs ?? null;
  }
}

const Envelope = z.object({
  error: z
    .object({
      name: z.string().optional(),
      cause: z.object({ name: z.string(), info: z.unknown().optional() }).optional(),
      data: z.unknown().optional(),
      message: z.string().optional(),
    })
    .optional(),
  result: z.unknown().optional(),
});

/** A `call_function` answer. nearcore still reports a contract failure as `error` here, with HTTP 200. */
const CallResult = z.object({
  result: z.array(z.number().int().min(0).max(255)).optional(),
  error: z.string().optional(),
  block_height: z.number().int().nonnegative(),
  block_hash: z.string(),
});

/** A view call's JSON return value and the block the node answered at. */
export interface ViewAnswer {
  value: unknown;
  blockHeight: number;
  blockHash: string;
}

/**
 * Calls view method `methodName` of `contractId` with JSON `args` and returns its JSON-decoded return value
 * (`undefined` when it returns nothing). Throws RpcError for an error answer, or once the retries are spent.
 */
export async function viewFunction(
  rpcUrl: string,
  contractId: string,
  methodName: string,
  args: unknown = {},
  options: ViewOptions & { blockId?: number } = {},
): Promise<unknown> {
  return (await viewFunctionAt(rpcUrl, contractId, methodName, args, options)).value;
}

/** viewFunction, also telling the block of the answer; `blockId` asks at that block instead of at `finality`. */
export async function viewFunctionAt(
  rpcUrl: string,
  contractId: string,
  methodName: string,
  args: unknown = {},
  options: ViewOptions & { blockId?: number } = {},
): Promise<ViewAnswer> {
  const at = options.blockId === undefined ? { finality: options.finality ?? 'final' } : { block_id: options.blockId };
  const params = {
    request_type: 'call_function',
    ...at,
    account_id: contractId,
    method_name: methodName,
    args_base64: Buffer.from(JSON.stringify(args), 'utf8').toString('base64'),
  };
  const result = await jsonRpc(rpcUrl, 'query', params, { contractId, methodName }, options);
  const fail = (causeName: string, detail: string, cause?: unknown) => new RpcError({ contractId, methodName, causeName, detail, cause });
  const parsed = CallResult.safeParse(result);
  if (!parsed.success) throw fail('BAD_RESPONSE', JSON.stringify(result)?.slice(0, 200) ?? '');
  const { result: bytes, error, block_height: blockHeight, block_hash: blockHash } = parsed.data;
  if (error !== undefined) throw fail('CONTRACT_EXECUTION_ERROR', error);
  if (bytes === undefined) throw fail('BAD_RESPONSE', 'no result bytes');
  if (bytes.length === 0) return { value: undefined, blockHeight, blockHash };
  try {
    return { value: JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes))), blockHeight, blockHash };
  } catch (error) {
    throw fail('NOT_JSON', `the contract returned ${bytes.length} bytes that are not UTF-8 JSON`, error);
  }
}

const BlockResult = z.object({
  header: z.object({ height: z.number().int(), hash: z.string(), prev_hash: z.string(), timestamp_nanosec: z.string().regex(/^\d+$/) }),
});

export interface BlockHeader {
  height: number;
  hash: string;
  prevHash: string;
  timestampMs: number;
}

/** The header of block `blockId`, or of the latest final block (method `block`): height, hashes and exact time. */
export async function blockHeader(rpcUrl: string, blockId: number | 'final', options: ViewOptions = {}): Promise<BlockHeader> {
  const what = { contractId: blockId === 'final' ? 'the latest final block' : `block ${blockId}`, methodName: 'header' };
  const params = blockId === 'final' ? { finality: 'final' } : { block_id: blockId };
  const parsed = BlockResult.safeParse(await jsonRpc(rpcUrl, 'block', params, what, options));
  if (!parsed.success) throw new RpcError({ ...what, causeName: 'BAD_RESPONSE', detail: 'not a block answer' });
  const { height, hash, prev_hash: prevHash, timestamp_nanosec } = parsed.data.header;
  return { height, hash, prevHash, timestampMs: Number(BigInt(timestamp_nanosec) / 1_000_000n) };
}

const ProtocolConfigResult = z.object({
  protocol_version: z.number().int(),
  runtime_config: z.object({
    // A number, or (nodes whose views serialize gas as text) a decimal string.
    wasm_config: z.object({ limit_config: z.object({ max_total_prepaid_gas: z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/)]) }) }),
  }),
});

/**
 * The network's most prepaid gas per transaction (`EXPERIMENTAL_protocol_config`:
 * runtime_config.wasm_config.limit_config.max_total_prepaid_gas; C: nearcore's RuntimeConfigView) and the protocol
 * version it is in force at.
 */
export async function protocolLimits(rpcUrl: string, options: ViewOptions = {}): Promise<{ protocolVersion: number; maxTotalPrepaidGas: bigint }> {
  const what = { contractId: 'the protocol config', methodName: 'EXPERIMENTAL_protocol_config' };
  const parsed = ProtocolConfigResult.safeParse(await jsonRpc(rpcUrl, 'EXPERIMENTAL_protocol_config', { finality: 'final' }, what, options));
  if (!parsed.success) throw new RpcError({ ...what, causeName: 'BAD_RESPONSE', detail: 'not a protocol config answer' });
  return { protocolVersion: parsed.data.protocol_version, maxTotalPrepaidGas: BigInt(parsed.data.runtime_config.wasm_config.limit_config.max_total_prepaid_gas) };
}

const StateResult = z.object({
  values: z.array(z.object({ key: z.string(), value: z.string() })),
  block_height: z.number().int().nonnegative(),
});

/**
 * The storage of `contractId` under a key prefix at block `blockId` (`query` `view_state`), keys and values in
 * base64; null when the node will not serve it: a contract whose state is over the node's limit
 * (`TOO_LARGE_CONTRACT_STATE`; nearcore's `trie_viewer_state_size_limit`, 50 kB by default), as Ref's on mainnet.
 */
export async function viewStateAt(
  rpcUrl: string,
  contractId: string,
  prefixBase64: string,
  options: ViewOptions & { blockId: number },
): Promise<Array<{ keyBase64: string; valueBase64: string }> | null> {
  const params = { request_type: 'view_state', block_id: options.blockId, account_id: contractId, prefix_base64: prefixBase64 };
  const what = { contractId, methodName: `view_state(${prefixBase64 || 'all'})` };
  let result: unknown;
  try {
    result = await jsonRpc(rpcUrl, 'query', params, what, options);
  } catch (error) {
    if (error instanceof RpcError && error.causeName === 'TOO_LARGE_CONTRACT_STATE') return null;
    throw error;
  }
  const parsed = StateResult.safeParse(result);
  if (!parsed.success) throw new RpcError({ ...what, causeName: 'BAD_RESPONSE', detail: JSON.stringify(result)?.slice(0, 200) ?? '' });
  return parsed.data.values.map((v) => ({ keyBase64: v.key, valueBase64: v.value }));
}

interface Call {
  rpcUrl: string;
  contractId: string;
  methodName: string;
  body: string;
}

/** One JSON-RPC request, retried on transient failures; returns the envelope's `result`. */
async function jsonRpc(
  rpcUrl: string,
  method: string,
  params: unknown,
  what: { contractId: string; methodName: string },
  options: ViewOptions,
): Promise<unknown> {
  const { signal, timeoutMs = DEFAULTS.timeoutMs, retries = DEFAULTS.retries } = options;
  const call = { rpcUrl, ...what, body: JSON.stringify({ jsonrpc: '2.0', id: 'dexlake', method, params }) };
  for (let attempt = 0; ; attempt++) {
    signal?.throwIfAborted();
    try {
      return await callOnce(call, timeoutMs, signal);
    } catch (error) {
      if (!(error instanceof RpcError) || !error.transient || attempt >= retries) throw error;
      const waitMs = error.retryAfterMs ?? backoffDelay(attempt, BACKOFF);
      if (waitMs > MAX_RETRY_AFTER_MS) throw error;
      await sleep(waitMs, signal ?? new AbortController().signal);
    }
  }
}

async function callOnce(call: Call, timeoutMs: number, outer: AbortSignal | undefined): Promise<unknown> {
  type More = { transient?: boolean; retryAfterMs?: number | null; cause?: unknown };
  const fail = (causeName: string, detail: string, more: More = {}) =>
    new RpcError({ contractId: call.contractId, methodName: call.methodName, causeName, detail, ...more });

  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = outer ? AbortSignal.any([timeout, outer]) : timeout;
  let status: number;
  let retryAfter: string | null;
  let text: string;
  try {
    const response = await fetch(call.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: call.body,
      signal,
    });
    status = response.status;
    retryAfter = response.headers.get('retry-after');
    text = await response.text(); // also under the timeout: a body that never ends is a hang too
  } catch (error) {
    if (outer?.aborted) throw outer.reason; // the caller gave up: not ours to retry or rename
    if (timeout.aborted) throw fail('TIMEOUT', `no answer in ${timeoutMs} ms`, { transient: true });
    const detail = error instanceof Error ? `${error.message}${causeText(error)}` : String(error);
    throw fail('NETWORK', detail, { transient: true, cause: error });
  }

  // 408/429/5xx may pass (INTERNAL_ERROR: "node overloaded, try again later"); the rest will not get better.
  const transient = status === 408 || status === 429 || status >= 500;
  const retryAfterMs = status === 429 || status === 503 ? parseRetryAfter(retryAfter) : null;
  const envelope = parseEnvelope(text);

  if (envelope?.error) {
    const e = envelope.error;
    const legacy = typeof e.data === 'string' ? e.data : (e.message ?? '');
    const detail = e.cause?.info !== undefined ? JSON.stringify(e.cause.info) : legacy;
    throw fail(e.cause?.name ?? e.name ?? 'RPC_ERROR', detail, { transient: transient || e.name === 'INTERNAL_ERROR', retryAfterMs });
  }
  if (status < 200 || status > 299) throw fail(`HTTP_${status}`, text.slice(0, 200), { transient, retryAfterMs });
  if (envelope === null || envelope.result === undefined) throw fail('BAD_RESPONSE', text.slice(0, 200));
  return envelope.result;
}

function parseEnvelope(text: string): z.infer<typeof Envelope> | null {
  try {
    const parsed = Envelope.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null; // not JSON (a proxy's HTML error page...): the status decides
  }
}

/** undici's "fetch failed" hides the useful part (ECONNREFUSED...) in `cause`. */
function causeText(error: Error): string {
  return error.cause instanceof Error ? `: ${error.cause.message}` : '';
}

/** `Retry-After` in seconds or as an HTTP date. */
function parseRetryAfter(header: string | null): number | null {
  if (header === null) return null;
  const ms = /^\d+$/.test(header.trim()) ? Number(header) * 1000 : Date.parse(header) - Date.now();
  return Number.isFinite(ms) ? Math.max(ms, 0) : null;
}

// --- NEP-148 fungible token metadata ---

/** NEP-148 `ft_metadata`: `decimals` is a u8; icon (a data: URL), reference, reference_hash may be absent or null. */
const FtMetadataSchema = z.object({
  spec: z.string(),
  name: z.string(),
  symbol: z.string(),
  decimals: z.number().int().min(0).max(255),
  icon: z.string().nullish(),
  reference: z.string().nullish(),
  reference_hash: z.string().nullish(),
});

/** Why fetchFtMetadata gave null: `missing` (no such account, no contract, no ft_metadata) or `malformed`. */
export interface NoFtMetadata {
  kind: 'missing' | 'malformed';
  detail: string;
}

export interface FtMetadataOptions extends ViewOptions {
  /** Ask at this block instead of at `finality`. */
  blockId?: number;
  /** Called with the reason whenever the result is null, e.g. to log malformed metadata. */
  onNoMetadata?: (reason: NoFtMetadata) => void;
}

/** The answers that mean "this is not a token", as opposed to a failure to ask. */
const MISSING_CAUSES = new Set(['UNKNOWN_ACCOUNT', 'INVALID_ACCOUNT', 'NO_CONTRACT_CODE']);
const MISSING_VM_ERROR = /MethodNotFound|CodeDoesNotExist/;

/**
 * The token's NEP-148 metadata, or null when the contract does not exist, has no `ft_metadata`, or answers something
 * that is not NEP-148 metadata (those are answers). Throws RpcError for failures (unreachable node, contract panic...).
 */
export async function fetchFtMetadata(
  rpcUrl: string,
  contractId: string,
  options: FtMetadataOptions = {},
): Promise<FtMetadata | null> {
  const none = (kind: NoFtMetadata['kind'], detail: string): null => {
    options.onNoMetadata?.({ kind, detail });
    return null;
  };
  let raw: unknown;
  try {
    raw = await viewFunction(rpcUrl, contractId, 'ft_metadata', {}, options);
  } catch (error) {
    if (!(error instanceof RpcError)) throw error;
    if (MISSING_CAUSES.has(error.causeName)) return none('missing', error.message);
    const vmMissing = error.causeName === 'CONTRACT_EXECUTION_ERROR' && MISSING_VM_ERROR.test(error.detail);
    if (vmMissing) return none('missing', error.message);
    if (error.causeName === 'NOT_JSON') return none('malformed', error.message);
    throw error;
  }
  const parsed = FtMetadataSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    return none('malformed', `${contractId}.ft_metadata: ${issues}`);
  }
  const { spec, name, symbol, decimals, icon, reference } = parsed.data;
  return { spec, name, symbol, decimals, icon: icon ?? null, reference: reference ?? null };
}
