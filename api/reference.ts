// The one API reference: `/openapi.json` (OpenAPI 3.1) for every HTTP path (the token-data methods from their zod
// schemas, GET /route with every parameter, its quote schema and its plain-text errors, /health, /metrics,
// /indexer), and `/asyncapi.json` (AsyncAPI 3.0) for the two sockets, /ws and /route/subscribe. Both are made once:
// they depend on nothing but the code.
import type { Method } from './tokens/method.ts';
import { openApiDocument } from './tokens/openapi.ts';
import { LIMITS, PROTOCOL_VERSION } from './tokens/limits.ts';
import { ERRORS, MAX_WAIT_MS } from './routing/params.ts';
import { HEIGHT_HEADER } from './routing/route.ts';

type Json = Record<string, any>;

const text = (description: string) => ({ description, content: { 'text/plain': { schema: { type: 'string' } } } });

/** Every message GET /route answers with 400, as its parser writes them (placeholders in angle brackets). */
export function routeErrorMessages(): string[] {
  return Object.values(ERRORS).map((e) => (typeof e === 'function' ? (e as (...args: string[]) => string)('<name>', '<value>') : e));
}

const amount = { type: 'string', pattern: '^[0-9]+$', description: 'an integer in the token\'s smallest unit' };
const fraction = (what: string) => ({ type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$', description: `${what}, a decimal from 0 to 1 (0.005 is 0.5 %)` });
const accountId = { type: 'string', description: 'a NEAR account id' };

function routeParameters(dexIds: readonly string[]): Json[] {
  const p = (name: string, required: boolean, schema: Json, description: string, example?: string) => ({
    name,
    in: 'query',
    required,
    description,
    schema,
    ...(example === undefined ? {} : { example }),
  });
  return [
    p('token_in', true, { type: 'string' }, 'the token paid: `near`, `nep141:<contract>` or a bare contract id', 'near'),
    p('token_out', true, { type: 'string' }, 'the token received, as token_in; must differ from it', 'usdt.tether-token.near'),
    p('amount_in', false, amount, 'exact input (exactly one of amount_in and amount_out)', '1000000000000000000000000'),
    p('amount_out', false, amount, 'exact output (exactly one of amount_in and amount_out)'),
    p('max_wait_ms', true, { type: 'integer', minimum: 0, maximum: MAX_WAIT_MS }, 'how long request-for-quote DEXes (QuoteA) are waited for, at most 60000', '1000'),
    p('slippage_type', true, { type: 'string', enum: ['Fixed', 'Auto'] }, '`Fixed`: `slippage` as given; `Auto`: price impact plus recent volatility, within min_slippage..max_slippage', 'Fixed'),
    p('slippage', false, fraction('required with Fixed'), 'required with slippage_type=Fixed', '0.005'),
    p('min_slippage', false, fraction('required with Auto'), 'required with slippage_type=Auto'),
    p('max_slippage', false, fraction('required with Auto, at least min_slippage'), 'required with slippage_type=Auto'),
    p('trader_account_id', false, accountId, 'who will sign: adds the storage deposits and registrations the trader needs; QuoteA needs it', 'alice.near'),
    p('referrer_id', false, accountId, 'a referrer passed to the DEXes that take one'),
    {
      ...p('dexes', false, { type: 'array', items: { type: 'string', enum: [...dexIds] } }, 'the DEX ids to ask, comma-separated (default: all)'),
      style: 'form',
      explode: false,
    },
    { ...p('signing_public_key', false, { type: 'string' }, 'deprecated and ignored'), deprecated: true },
  ];
}

const functionCall = {
  type: 'object',
  properties: {
    FunctionCall: {
      type: 'object',
      properties: {
        method_name: { type: 'string' },
        args: { type: 'string', description: 'the JSON arguments, base64' },
        gas: { type: 'integer', description: 'attached gas' },
        deposit: { type: 'string', description: 'attached yoctoNEAR' },
      },
      required: ['method_name', 'args', 'gas', 'deposit'],
    },
  },
  required: ['FunctionCall'],
};

const amountObject = {
  oneOf: [
    { type: 'object', properties: { amount_out: { type: 'string' } }, required: ['amount_out'] },
    { type: 'object', properties: { amount_in: { type: 'string' } }, required: ['amount_in'] },
  ],
};

function quoteSchema(dexIds: readonly string[]): Json {
  return {
    type: 'object',
    description: 'one DEX\'s best route; the list is best first: output net of gas and storage costs at indexed prices (exact out: input plus costs), QuoteA last',
    properties: {
      deadline: { type: ['string', 'null'], description: 'RFC 3339 expiry of a QuoteA quote; null for the others' },
      has_slippage: { type: 'boolean' },
      estimated_amount: { ...amountObject, description: 'the output (exact in) or the input (exact out) expected' },
      worst_case_amount: { ...amountObject, description: 'after slippage: what the calls send as their limit' },
      dex_id: { type: 'string', enum: [...dexIds] },
      execution_instructions: {
        type: 'array',
        description: 'in order: NEAR transactions to sign (calls to one receiver are one transaction), or a message to sign (QuoteA)',
        items: {
          oneOf: [
            {
              type: 'object',
              properties: { NearTransaction: { type: 'object', properties: { receiver_id: { type: 'string' }, actions: { type: 'array', items: functionCall } }, required: ['receiver_id', 'actions'] } },
              required: ['NearTransaction'],
            },
            { type: 'object', description: 'a NEP-413 message to sign (QuoteA\'s intent)', additionalProperties: true },
          ],
        },
      },
      token_output: { type: 'string', description: 'the token the calls deliver (`nep141:wrap.near` where the DEX trades wNEAR)' },
      needs_unwrap: { type: 'boolean', description: 'the output is wNEAR and the trader asked for NEAR' },
      estimated_max_gas_cost: { type: 'string', description: 'yoctoNEAR: the most the calls can cost, the transactions and the attached gas at 10^8 yocto per gas' },
      estimated_gas_usage: { type: 'string', description: 'gas units the calls are expected to burn, for every DEX: metered through the contract wasm where public, else an envelope of comparable real receipts (each DEX README); the attached gas is in estimated_max_gas_cost; ranking charges this at 10^8 yocto per gas' },
      storage_deposits: { type: 'string', description: 'yoctoNEAR the helper steps attach' },
      max_storage_deposits: { type: 'string' },
    },
    required: ['deadline', 'has_slippage', 'estimated_amount', 'worst_case_amount', 'dex_id', 'execution_instructions', 'token_output', 'needs_unwrap', 'estimated_max_gas_cost', 'estimated_gas_usage', 'storage_deposits', 'max_storage_deposits'],
  };
}

export const indexerStatusSchema = {
  type: 'object',
  properties: {
    height: { type: ['integer', 'null'], description: 'the newest indexed block' },
    timestamp_millis: { type: ['integer', 'null'], description: 'its chain time' },
    lag_seconds: { type: ['number', 'null'], description: 'now minus its chain time' },
    blocks_per_second: { type: 'number', description: 'blocks announced to this api over the last minute, per second' },
    dexes: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          dex: { type: 'string', description: 'a DEX id, or a core standard (NEP-141...) that has undecoded inputs only' },
          pools: { type: 'integer' },
          stale_pools: { type: 'integer', description: 'pools whose latest write did not decode (not routed)' },
          trades_24h: { type: 'integer', description: 'trades in the 24 h of chain time before the newest block' },
          undecoded: { type: 'integer', description: 'inputs its decoder could not read, since indexing began' },
        },
        required: ['dex', 'pools', 'stale_pools', 'trades_24h', 'undecoded'],
      },
    },
  },
  required: ['height', 'timestamp_millis', 'lag_seconds', 'blocks_per_second', 'dexes'],
} as const;

export function apiDocument(methods: readonly Method[], dexIds: readonly string[]): Json {
  const tokens = openApiDocument(methods);
  const routeErrors = routeErrorMessages().map((m) => `- \`${m}\``).join('\n');
  const paths: Json = {
    '/route': {
      get: {
        operationId: 'route',
        tags: ['routing'],
        summary: 'One ready-to-execute quote per DEX that routes the pair, best first',
        description: `Each DEX's best path (up to 3 hops; AmmA may split across parallel paths) for the exact amount, with the NEAR calls to sign. Errors are plain text. Costs 1 credit of ${LIMITS.credits_per_minute} per minute per client address. The same query on WebSocket /route/subscribe is answered again when the pools change (asyncapi.json).`,
        parameters: routeParameters(dexIds),
        responses: {
          '200': {
            description: 'the quotes, best first (`[]`: no route)',
            headers: {
              [HEIGHT_HEADER]: {
                description: 'the block height of the pool state the quotes were computed on: this process\'s routing graph had applied every indexed block up to it (GET /health `route_height`); absent while the graph holds no block',
                schema: { type: 'integer' },
              },
            },
            content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Quote' } } } },
          },
          '400': text(`a query that breaks a rule; the body is one line, the first rule broken:\n\n${routeErrors}`),
          '429': { ...text('`Rate limited: ...`, past the client\'s credits'), headers: { 'Retry-After': { schema: { type: 'integer' } } } },
          '503': text('`The database is unavailable; try again shortly`: the query needs a read (trader_account_id, Auto slippage) while PostgreSQL is down'),
        },
      },
    },
    '/health': {
      get: {
        operationId: 'health',
        tags: ['service'],
        summary: 'Whether the service is ready (the database answers, holds a block, and the indexed height moves), and how far the indexed data is behind the chain',
        responses: {
          '200': { description: 'ready: the database answers, holds a block, and the indexed height changed within the stall time', content: { 'application/json': { schema: { $ref: '#/components/schemas/Health' } } } },
          '503': {
            description:
              'not ready, `reason` says why: the database does not answer (`db: "down"`), it holds no block yet, or the indexed height has not changed for DEXLAKE_STALL_SECONDS (default 60; the indexer\'s source makes no progress)',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Health' } } },
          },
        },
      },
    },
    '/metrics': {
      get: {
        operationId: 'metrics',
        tags: ['service'],
        summary: 'Prometheus metrics of the api',
        description: 'Process metrics, `dexlake_api_http_request_duration_seconds` (by route and status), the indexed height, lag and blocks/s, open sockets and subscriptions by socket, and the token-data response cache\'s hits and misses.',
        responses: { '200': { description: 'Prometheus text format 0.0.4', content: { 'text/plain': { schema: { type: 'string' } } } } },
      },
    },
    '/indexer': {
      get: {
        operationId: 'indexer',
        tags: ['service'],
        summary: 'The indexer as the api sees it: height, lag, blocks/s, and per DEX its pools, trades of the last 24 h and undecoded inputs',
        responses: {
          '200': { description: 'the status', content: { 'application/json': { schema: { $ref: '#/components/schemas/IndexerStatus' } } } },
          '500': { description: 'internal (the database does not answer)', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        },
      },
    },
  };
  for (const [path, item] of Object.entries<Json>(tokens.paths)) {
    paths[path] = Object.fromEntries(Object.entries<Json>(item).map(([verb, op]) => [verb, { ...op, tags: ['token data'] }]));
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'dexlake',
      version: String(PROTOCOL_VERSION),
      description:
        'Swap routing and token data for NEAR. HTTP paths are below; the two WebSockets, `/ws` (every token-data method by name, plus `tokens.subscribe` and `trades.subscribe`) and `/route/subscribe` (GET /route\'s query, answered again as pools change), are described by the AsyncAPI document at [/asyncapi.json](/asyncapi.json). The explorer is at [/](/).',
    },
    tags: [
      { name: 'routing', description: 'GET /route; live on WebSocket /route/subscribe' },
      { name: 'token data', description: 'every method also over POST (a JSON body) and on WebSocket /ws' },
      { name: 'service', description: 'health, metrics and the indexer\'s status' },
    ],
    paths,
    components: {
      schemas: {
        ...tokens.components.schemas,
        Quote: quoteSchema(dexIds),
        Health: {
          type: 'object',
          properties: {
            db: { type: 'string', enum: ['ok', 'down'] },
            reason: { type: 'string', description: 'only on a 503: why the service is not ready' },
            height: { type: ['integer', 'null'] },
            lag_seconds: { type: ['number', 'null'], description: 'now minus the newest indexed block\'s chain time' },
            route_height: {
              type: ['integer', 'null'],
              description: 'the block height of this process\'s routing graph, which GET /route and /route/subscribe answer from (their X-Dexlake-Height, `height`); it trails `height` until the graph has applied the newest block; null before the graph holds a block',
            },
            bulk_load: {
              type: 'object',
              description: "only while the indexer's bulk-load mode has history indexes missing: answers stay right, some are slower",
              properties: { indexes_missing: { type: 'array', items: { type: 'string' } }, note: { type: 'string' } },
              required: ['indexes_missing', 'note'],
            },
            reads: {
              type: 'object',
              description: 'only with read replicas (DATABASE_READ_URL): the primary and each replica; `db` and `height` are the primary\'s, or while it is down a replica\'s in use',
              properties: {
                primary: { type: 'string', enum: ['ok', 'down'] },
                notified: {
                  type: ['object', 'null'],
                  description: 'the newest notification taken into account: reads wait for a replica that has replayed `lsn`',
                  properties: { height: { type: ['integer', 'null'] }, lsn: { type: 'string' } },
                  required: ['height', 'lsn'],
                },
                primary_reads: { type: 'integer' },
                replicas: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: {
                      name: { type: 'string', description: 'host:port/database, no credentials' },
                      state: { type: 'string', enum: ['ok', 'behind', 'down'] },
                      replay_lsn: { type: ['string', 'null'] },
                      lag_bytes: { type: ['integer', 'null'] },
                      lag_blocks: { type: ['integer', 'null'] },
                      reads: { type: 'integer' },
                    },
                    required: ['name', 'state', 'replay_lsn', 'lag_bytes', 'lag_blocks', 'reads'],
                  },
                },
              },
              required: ['primary', 'notified', 'primary_reads', 'replicas'],
            },
          },
          required: ['db', 'height', 'lag_seconds', 'route_height'],
        },
        IndexerStatus: indexerStatusSchema,
      },
    },
  };
}

/** The two sockets, as AsyncAPI 3.0 (the server's view: `send` is what the server sends). */
export function asyncApiDocument(methods: readonly Method[]): Json {
  const names = methods.map((m) => m.name);
  const message = (name: string, summary: string, payload: Json) => ({ name, summary, payload });
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'dexlake sockets',
      version: String(PROTOCOL_VERSION),
      description: 'The WebSockets of dexlake. HTTP paths: [/openapi.json](/openapi.json), browsable at [/docs](/docs).',
    },
    servers: { api: { host: 'localhost:3000', protocol: 'ws', description: 'the api (`dexlake serve`)' } },
    channels: {
      tokens: {
        address: '/ws',
        description: `Token data. The server first sends a hello; then each \`{id, method, params}\` is answered \`{id, result}\` or \`{id, error}\`. Methods: ${names.map((n) => `\`${n}\``).join(', ')} (params and results: the \`schema\` method, or /openapi.json). \`tokens.subscribe\` answers with the token table, then pushes \`{sub, height, set, left}\` after each indexed batch that changes it; \`trades.subscribe\` answers with the height it starts after, then pushes \`{sub, height, trades}\` with the matching trades of each indexed batch that has some, oldest first. Limits: ${LIMITS.max_subscriptions_per_connection} subscriptions per connection, ${LIMITS.max_message_bytes} bytes per message, ${LIMITS.credits_per_minute} credits per minute; a client that leaves ${LIMITS.max_buffered_bytes} bytes unread is cut off.`,
        messages: {
          hello: message('hello', 'sent once on connect', { type: 'object', properties: { hello: { type: 'object', properties: { version: { type: 'integer' }, height: { type: 'integer' }, timestamp_millis: { type: 'integer' }, limits: { type: 'object' } } }, credits_used: { type: 'integer' } } }),
          request: message('request', 'a method call', { type: 'object', properties: { id: { type: 'integer' }, method: { type: 'string', enum: names }, params: { type: 'object' } }, required: ['id', 'method'] }),
          reply: message('reply', 'the answer to a request', { type: 'object', properties: { id: { type: ['integer', 'null'] }, result: {}, error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } } }, credits_used: { type: 'integer' } }, required: ['id'] }),
          push: message('push', 'a subscription\'s change: per token that entered or changed, its fields that changed (a new token whole); tokens that left', { type: 'object', properties: { sub: { type: 'integer' }, height: { type: 'integer' }, set: { type: 'object', additionalProperties: { type: 'object', additionalProperties: { type: ['string', 'number', 'null'] } } }, left: { type: 'array', items: { type: 'string' } } }, required: ['sub', 'height', 'set', 'left'] }),
          trades: message('trades', 'a trade feed\'s new trades (trades.subscribe): those of the blocks after the previous push up to `height` that match, oldest first, as trades.query rows', {
            type: 'object',
            properties: { sub: { type: 'integer' }, height: { type: 'integer' }, trades: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } } },
            required: ['sub', 'height', 'trades'],
          }),
          end: message('end', 'a subscription ended by the server', { type: 'object', properties: { sub: { type: 'integer' }, end: { type: 'object', properties: { message: { type: 'string' } } } }, required: ['sub', 'end'] }),
        },
      },
      routes: {
        address: '/route/subscribe',
        description: 'Live routing. Each `{id, query}` (GET /route\'s query string) replaces the previous request; `{id}` alone stops it. The server answers `{id, routes, height}` (the quotes, best first, and the block height they were computed at) at once and again when a pool of an asked DEX changes and the quotes changed (a new height alone is not sent); an invalid query gets `{id, error}` (GET /route\'s plain-text message) and the socket stays open; a token the service does not know gets `{id, error}` (`Unknown token: <token>`) in place of quotes, and quotes once a pool of it is indexed. A frame that is not such JSON closes the connection.',
        messages: {
          subscribe: message('subscribe', 'a request', { type: 'object', properties: { id: { type: 'integer', minimum: 0 }, query: { type: 'string', example: 'token_in=near&token_out=usdt.tether-token.near&amount_in=1000000000000000000000000&max_wait_ms=1000&slippage_type=Fixed&slippage=0.005' } }, required: ['id'], additionalProperties: false }),
          routes: message('routes', 'quotes for the current request', {
            type: 'object',
            properties: {
              id: { type: 'integer' },
              routes: { type: 'array', items: { $ref: '/openapi.json#/components/schemas/Quote' } },
              height: { type: ['integer', 'null'], description: 'the block height of the pool state the routes were computed on (as GET /route\'s X-Dexlake-Height); null while the graph holds no block' },
            },
            required: ['id', 'routes', 'height'],
          }),
          error: message('error', 'the request is invalid, or past its credits', { type: 'object', properties: { id: { type: 'integer' }, error: { type: 'string' } }, required: ['id', 'error'] }),
        },
      },
    },
    operations: {
      callMethod: { action: 'receive', channel: { $ref: '#/channels/tokens' }, messages: [{ $ref: '#/channels/tokens/messages/request' }] },
      answer: { action: 'send', channel: { $ref: '#/channels/tokens' }, messages: ['hello', 'reply', 'push', 'trades', 'end'].map((m) => ({ $ref: `#/channels/tokens/messages/${m}` })) },
      subscribeRoutes: { action: 'receive', channel: { $ref: '#/channels/routes' }, messages: [{ $ref: '#/channels/routes/messages/subscribe' }] },
      sendRoutes: { action: 'send', channel: { $ref: '#/channels/routes' }, messages: ['routes', 'error'].map((m) => ({ $ref: `#/channels/routes/messages/${m}` })) },
    },
  };
}
