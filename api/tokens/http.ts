// The token-data methods over HTTP: GET with the parameters in the query string, POST with a JSON body identical
// to the socket's params. Every response, errors included, carries X-Credits-Used and Cache-Control, and is
// compressed with zstd or gzip when Accept-Encoding allows.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { cacheControl, type CachedAnswer } from './cache.ts';
import type { MethodCaller } from './call.ts';
import { chooseEncoding, COMPRESS_MIN_BYTES, compressBody } from './compress.ts';
import { ERROR_CREDITS } from './credits.ts';
import { ApiError, httpStatus, toErrorBody } from './errors.ts';
import { LIMITS } from './limits.ts';
import type { Method } from './method.ts';
import { paramsFromQuery } from './query.ts';
import type { CreditBudget } from './rate-limit.ts';

export interface SendOptions {
  status: number;
  json: string;
  cacheControl: string;
  credits: number;
  /** The method's answer `json` comes from: its compressed bodies are kept on it. */
  answer?: CachedAnswer;
}

export function send(request: FastifyRequest, reply: FastifyReply, { status, json, cacheControl: control, credits, answer }: SendOptions): FastifyReply {
  // A cached answer's bytes are made once: measuring or encoding a large body again on every request costs more
  // than the rest of the request.
  const bytes = answer ? (answer.utf8 ??= Buffer.from(json)) : Buffer.from(json);
  const encoding = bytes.length >= COMPRESS_MIN_BYTES ? chooseEncoding(request.headers['accept-encoding']) : 'identity';
  reply
    .code(status)
    .header('content-type', 'application/json; charset=utf-8')
    .header('cache-control', control)
    .header('x-credits-used', String(credits))
    .header('vary', 'Accept-Encoding');
  if (encoding === 'identity') return reply.send(bytes);
  reply.header('content-encoding', encoding);
  if (!answer) return reply.send(compressBody(bytes, encoding));
  return reply.send((answer.compressed[encoding] ??= compressBody(bytes, encoding)));
}

export function sendError(request: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  const body = toErrorBody(err);
  if (body.code === 'internal') request.log.error({ err }, 'token api request failed');
  if (err instanceof ApiError && err.retryAfterSeconds !== undefined) reply.header('retry-after', String(err.retryAfterSeconds));
  return send(request, reply, { status: httpStatus(body.code), json: JSON.stringify({ error: body }), cacheControl: 'no-store', credits: ERROR_CREDITS });
}

/** Fastify's own errors (body parsing) in our vocabulary. */
function fromFastifyError(err: unknown): unknown {
  if (err instanceof ApiError) return err;
  const e = err as { code?: string; statusCode?: number; message?: string };
  if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || e.statusCode === 413) return new ApiError('too_large', `the body is larger than ${LIMITS.max_message_bytes} bytes`);
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) return new ApiError('bad_request', e.message ?? 'bad request');
  return err;
}

export interface HttpOptions {
  caller: MethodCaller;
  methods: readonly Method[];
  budget: CreditBudget;
}

export function tokenHttpRoutes(app: FastifyInstance, { caller, methods, budget }: HttpOptions): void {
  app.setErrorHandler((err, request, reply) => sendError(request, reply, fromFastifyError(err)));

  const answer = async (request: FastifyRequest, reply: FastifyReply, method: Method, params: () => unknown, rawKey?: string) => {
    try {
      budget.check(request.ip);
      const result = await caller.call(method, params, rawKey);
      budget.spend(request.ip, result.credits);
      return send(request, reply, { status: 200, json: result.json, cacheControl: cacheControl(result.cache), credits: result.credits, answer: result });
    } catch (err) {
      budget.spend(request.ip, ERROR_CREDITS);
      return sendError(request, reply, err);
    }
  };

  for (const method of methods) {
    if (!method.path) continue;
    app.get(method.path, (request, reply) => {
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
      return answer(request, reply, method, () => paramsFromQuery(query, method.params, method.overrides), `${method.name}?${query}`);
    });
    app.post(method.path, { bodyLimit: LIMITS.max_message_bytes }, (request, reply) =>
      answer(request, reply, method, () => {
        if (request.url.includes('?')) throw new ApiError('bad_request', 'POST takes its parameters in the JSON body, not the query string');
        return request.body;
      }),
    );
  }

  // Anything else under the token API's paths names no method.
  const unknown = (request: FastifyRequest, reply: FastifyReply) =>
    sendError(request, reply, new ApiError('unknown_method', `no method at ${request.method} ${request.url.split('?')[0]}`));
  // Not OPTIONS: CORS preflights of every path are @fastify/cors's.
  const verbs = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
  const prefixes = new Set(methods.flatMap((m) => (m.path ? [`/${m.path.split('/')[1]}`] : [])));
  for (const prefix of prefixes) {
    app.route({ method: verbs, url: `${prefix}/*`, handler: unknown });
    if (!methods.some((m) => m.path === prefix)) app.route({ method: verbs, url: prefix, handler: unknown });
  }
  // A method's own path under another verb (GET, HEAD and POST are served above).
  for (const method of methods) if (method.path) app.route({ method: ['PUT', 'PATCH', 'DELETE'], url: method.path, handler: unknown });
}
