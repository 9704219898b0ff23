// QuoteA's source of prices: the solver relay's JSON-RPC `quote` (near-facts.md "QuoteA"), asked once per request
// and waited for at most `max_wait_ms`: no answer in time means no QuoteA quote, never a late one.
import { parseU128 } from '../../near/units.ts';

export interface RelayQuote {
  quoteHash: string;
  amountIn: bigint;
  amountOut: bigint;
  /** RFC 3339, as the relay gave it. */
  expirationTime: string;
}

export interface RelayRequest {
  assetIn: string;
  assetOut: string;
  mode: 'exact_in' | 'exact_out';
  amount: bigint;
}

/** How long the quote must stay valid (the aggregator's figure). */
const MIN_DEADLINE_MS = 60_000;

/** The JSON-RPC body of a `quote` call. */
export function quoteRequestBody(request: RelayRequest): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'quote',
    params: [
      {
        defuse_asset_identifier_in: request.assetIn,
        defuse_asset_identifier_out: request.assetOut,
        [request.mode === 'exact_in' ? 'exact_amount_in' : 'exact_amount_out']: request.amount.toString(),
        min_deadline_ms: MIN_DEADLINE_MS,
      },
    ],
  });
}

/**
 * The best quote of a relay answer for the request: the largest output (exact in) or the smallest input (exact
 * out) among the well-formed quotes of the asked pair and amount; ties by quote hash. null when there is none.
 */
export function bestRelayQuote(answer: unknown, request: RelayRequest): RelayQuote | null {
  const result = (answer as { result?: unknown } | null)?.result;
  if (!Array.isArray(result)) return null;
  const quotes: RelayQuote[] = [];
  for (const item of result as Record<string, unknown>[]) {
    if (typeof item !== 'object' || item === null) continue;
    const amountIn = parseU128(item.amount_in);
    const amountOut = parseU128(item.amount_out);
    const { quote_hash: quoteHash, expiration_time: expirationTime } = item;
    if (amountIn === null || amountOut === null || amountIn === 0n || amountOut === 0n) continue;
    if (typeof quoteHash !== 'string' || quoteHash === '' || typeof expirationTime !== 'string' || Number.isNaN(Date.parse(expirationTime))) continue;
    if (item.defuse_asset_identifier_in !== request.assetIn || item.defuse_asset_identifier_out !== request.assetOut) continue;
    if ((request.mode === 'exact_in' ? amountIn : amountOut) !== request.amount) continue;
    quotes.push({ quoteHash, amountIn, amountOut, expirationTime });
  }
  quotes.sort((a, b) => {
    if (request.mode === 'exact_in' && a.amountOut !== b.amountOut) return a.amountOut > b.amountOut ? -1 : 1;
    if (request.mode === 'exact_out' && a.amountIn !== b.amountIn) return a.amountIn < b.amountIn ? -1 : 1;
    return a.quoteHash < b.quoteHash ? -1 : a.quoteHash > b.quoteHash ? 1 : 0;
  });
  return quotes[0] ?? null;
}

/** Asks `{relayUrl}/rpc`; null on no answer within `waitMs`, an error, or no usable quote. */
export async function askRelay(relayUrl: string, request: RelayRequest, waitMs: number): Promise<RelayQuote | null> {
  try {
    const res = await fetch(`${relayUrl.replace(/\/+$/, '')}/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: quoteRequestBody(request),
      signal: AbortSignal.timeout(waitMs),
    });
    if (!res.ok) return null;
    return bestRelayQuote(await res.json(), request);
  } catch {
    return null;
  }
}
