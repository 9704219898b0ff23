// indexer/near-rpc.ts against a real local HTTP server speaking NEAR's JSON-RPC `query` / `call_function`, with the
// answer and error shapes a nearcore node gives (see the comment at the top of indexer/near-rpc.ts).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcError, fetchFtMetadata, viewFunction } from '../indexer/near-rpc.ts';
import type { NoFtMetadata } from '../indexer/near-rpc.ts';

const WRAP_METADATA = {
  spec: 'ft-1.0.0',
  name: 'Wrapped NEAR fungible token',
  symbol: 'wNEAR',
  icon: null,
  reference: null,
  reference_hash: null,
  decimals: 24,
};

const ICON = 'data:image/svg+xml,%3Csvg/%3E';
const METHOD_NOT_FOUND = 'wasm execution failed with error: MethodResolveError(MethodNotFound)';
const BLOCK = { block_height: 150_000_000, block_hash: '4qkA4sUUG8opjH5Q9bL5mWJTnfR4ech879Db1BZXbx6P' };

interface Seen {
  httpMethod: string | undefined;
  body: { jsonrpc: string; id: unknown; method: string; params: Record<string, unknown> };
}

/** A server on 127.0.0.1, port 0; `answer` gets each parsed request and how many came before for its account. */
async function startServer(
  answer: (seen: Seen, nth: number, res: http.ServerResponse) => void,
): Promise<{ url: string; seen: Seen[]; close: () => Promise<void> }> {
  const seen: Seen[] = [];
  const server = http.createServer(async (req, res) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    const s: Seen = { httpMethod: req.method, body: JSON.parse(text) };
    const nth = seen.filter((x) => x.body.params.account_id === s.body.params.account_id).length;
    seen.push(s);
    answer(s, nth, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    seen,
    close: () => {
      server.closeAllConnections(); // the hanging server's requests are still open
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

const ok = (result: unknown) => ({ jsonrpc: '2.0', id: 'dexlake', result });
const returning = (value: unknown) => ok({ result: [...Buffer.from(JSON.stringify(value))], logs: [], ...BLOCK });

/** A node on mainnet, with a token, nobody, a non-token contract, a broken token and two unlucky moments. */
function nearNode(seen: Seen, nth: number, res: http.ServerResponse): void {
  const account = seen.body.params.account_id;
  switch (account) {
    case 'wrap.near':
      return send(res, 200, returning(WRAP_METADATA));
    case 'nope.near':
      return send(res, 200, {
        jsonrpc: '2.0',
        id: 'dexlake',
        error: {
          name: 'HANDLER_ERROR',
          cause: { name: 'UNKNOWN_ACCOUNT', info: { requested_account_id: 'nope.near', ...BLOCK } },
          code: -32000,
          message: 'Server error',
          data: 'account nope.near does not exist while viewing',
        },
      });
    case 'app.near': // the old-style answer nearcore keeps for CONTRACT_EXECUTION_ERROR
      return send(res, 200, ok({ error: METHOD_NOT_FOUND, logs: [], ...BLOCK }));
    case 'broken.near':
      return send(res, 200, returning({ ...WRAP_METADATA, symbol: 'BRK', decimals: 'x' }));
    case 'flaky.near': // overloaded once, as nearcore says it: HTTP 500 INTERNAL_ERROR
      if (nth === 0) {
        return send(res, 500, {
          jsonrpc: '2.0',
          id: 'dexlake',
          error: {
            name: 'INTERNAL_ERROR',
            cause: { name: 'INTERNAL_ERROR', info: { error_message: 'overloaded' } },
            code: -32000,
            message: 'Server error',
          },
        });
      }
      return send(res, 200, returning({ ...WRAP_METADATA, symbol: 'FLK', decimals: 6 }));
    case 'busy.near': // a rate-limiting proxy in front of the node
      if (nth === 0) return void res.writeHead(429, { 'retry-after': '0' }).end('slow down');
      return send(res, 200, returning({ ...WRAP_METADATA, symbol: 'BSY', decimals: 18, icon: ICON }));
    case 'down.near':
      return void res.writeHead(503).end('<html>503 Service Unavailable</html>');
    default:
      return send(res, 200, ok({ result: [], logs: [], ...BLOCK }));
  }
}

describe('NEAR JSON-RPC view calls', () => {
  let node: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    node = await startServer(nearNode);
  });
  afterAll(() => node.close());

  it('sends a query/call_function request and decodes the bytes of wrap.near ft_metadata', async () => {
    const metadata = await fetchFtMetadata(node.url, 'wrap.near');
    expect(metadata).toEqual({
      spec: 'ft-1.0.0',
      name: 'Wrapped NEAR fungible token',
      symbol: 'wNEAR',
      decimals: 24,
      icon: null,
      reference: null,
    });

    const request = node.seen.find((s) => s.body.params.account_id === 'wrap.near');
    expect(request?.httpMethod).toBe('POST');
    expect(request?.body).toMatchObject({ jsonrpc: '2.0', method: 'query' });
    const params = request?.body.params ?? {};
    expect(params).toMatchObject({
      request_type: 'call_function',
      finality: 'final',
      account_id: 'wrap.near',
      method_name: 'ft_metadata',
    });
    expect(JSON.parse(Buffer.from(String(params.args_base64), 'base64').toString('utf8'))).toEqual({});
  });

  it('gives null for an unknown account and for a contract without ft_metadata, and says why', async () => {
    const reasons: NoFtMetadata[] = [];
    const onNoMetadata = (r: NoFtMetadata) => reasons.push(r);
    expect(await fetchFtMetadata(node.url, 'nope.near', { onNoMetadata })).toBeNull();
    expect(await fetchFtMetadata(node.url, 'app.near', { onNoMetadata })).toBeNull();
    expect(reasons).toEqual([
      { kind: 'missing', detail: expect.stringContaining('UNKNOWN_ACCOUNT') },
      { kind: 'missing', detail: expect.stringContaining('MethodNotFound') },
    ]);
  });

  it('throws an RpcError naming the contract, the method and the cause from viewFunction', async () => {
    const unknown = await viewFunction(node.url, 'nope.near', 'ft_metadata', {}).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(RpcError);
    expect(unknown).toMatchObject({
      contractId: 'nope.near',
      methodName: 'ft_metadata',
      causeName: 'UNKNOWN_ACCOUNT',
      transient: false,
    });
    expect((unknown as RpcError).message).toMatch(/nope\.near.*ft_metadata.*UNKNOWN_ACCOUNT/);

    const noMethod = await viewFunction(node.url, 'app.near', 'ft_metadata', {}).catch((e: unknown) => e);
    expect(noMethod).toBeInstanceOf(RpcError);
    expect((noMethod as RpcError).message).toMatch(/app\.near.*ft_metadata.*CONTRACT_EXECUTION_ERROR.*MethodNotFound/);
  });

  it('gives null, with the zod reason, for metadata that is not NEP-148', async () => {
    const reasons: NoFtMetadata[] = [];
    expect(await fetchFtMetadata(node.url, 'broken.near', { onNoMetadata: (r) => reasons.push(r) })).toBeNull();
    expect(reasons).toHaveLength(1);
    expect(reasons[0]?.kind).toBe('malformed');
    expect(reasons[0]?.detail).toMatch(/decimals/);
  });

  it('retries HTTP 500 and 429 (Retry-After) and then succeeds', async () => {
    expect(await fetchFtMetadata(node.url, 'flaky.near')).toMatchObject({ symbol: 'FLK', decimals: 6 });
    expect(node.seen.filter((s) => s.body.params.account_id === 'flaky.near')).toHaveLength(2);

    expect(await fetchFtMetadata(node.url, 'busy.near')).toMatchObject({ symbol: 'BSY', icon: ICON });
    expect(node.seen.filter((s) => s.body.params.account_id === 'busy.near')).toHaveLength(2);
  });

  it('gives up after the retries and throws (not null: the node failed, the token did not answer)', async () => {
    const error = await fetchFtMetadata(node.url, 'down.near', { retries: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    expect(error).toMatchObject({ causeName: 'HTTP_503', transient: true });
    expect(node.seen.filter((s) => s.body.params.account_id === 'down.near')).toHaveLength(2);
  });
});

describe('a node that never answers', () => {
  let silent: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    silent = await startServer(() => {}); // reads the request, never writes a byte back
  });
  afterAll(() => silent.close());

  it('fails with TIMEOUT once each attempt has timed out, instead of hanging', async () => {
    const call = viewFunction(silent.url, 'wrap.near', 'ft_metadata', {}, { timeoutMs: 200, retries: 1 });
    await expect(call).rejects.toBeInstanceOf(RpcError);
    await expect(call).rejects.toMatchObject({ causeName: 'TIMEOUT', transient: true });
  });

  it("rejects with the caller's reason when the caller's signal aborts, whatever the timeout", async () => {
    const controller = new AbortController();
    const call = fetchFtMetadata(silent.url, 'wrap.near', { signal: controller.signal, timeoutMs: 60_000 });
    setTimeout(() => controller.abort(new Error('shutting down')), 50);
    await expect(call).rejects.toThrow('shutting down');
  });
});
