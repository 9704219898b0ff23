// The vendored release wasm (near/vm/wasm/, SOURCES.md there), gunzipped: the only file of the realnet that reads
// files.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { RealnetChain } from './chain.ts';
import { HostedModels } from './hosted.ts';
import { RealnetMarket, REF_TOKEN, TREASURY, USDC, USDT, WRAP, type RealnetMarketOptions } from './market.ts';
import { RealnetRpcChain } from './rpc.ts';

import { parseRefRelease, refHasSwapByOutput, type RefRelease } from './releases.ts';

export { parseRefRelease, REF_RELEASES, refHasSwapByOutput, type RefRelease } from './releases.ts';

const WASM_DIR = new URL('../../near/vm/wasm/', import.meta.url);
const cache = new Map<string, Uint8Array>();

/** A vendored wasm by its file name without `.wasm.gz` (`ref_exchange_v1.9.17`, `w_near`, `fungible_token_sdk3.1`). */
export function vendoredWasm(name: string): Uint8Array {
  let wasm = cache.get(name);
  if (wasm === undefined) cache.set(name, (wasm = new Uint8Array(gunzipSync(readFileSync(new URL(`${name}.wasm.gz`, WASM_DIR))))));
  return wasm;
}

export const refWasm = (release: RefRelease): Uint8Array => vendoredWasm(`ref_exchange_v${release}`);

/** The realnet market's contracts: Ref of `release`, the intents verifier, wNEAR, and the near-sdk 3.1 and 4.1 NEP-141 examples. */
export const marketWasm = (release: RefRelease) => ({
  ref: refWasm(release),
  intents: vendoredWasm('defuse_0.2.10'),
  wNear: vendoredWasm('w_near'),
  ftSdk3: vendoredWasm('fungible_token_sdk3.1'),
  ftSdk4: vendoredWasm('fungible_token_sdk4.1'),
});

/**
 * The realnet's seeded market on Ref `release` (default the newest), swaps by output where the release has them;
 * with `models`, the models of the contracts whose code is not public hosted beside it (hosted.ts; `recordTrades`
 * keeps their hops, `trickle: false` leaves out their lines in unknown formats, `arbitrage: false` the arbitrage trader).
 */
export function realnetMarket(release: string | undefined, options: Omit<RealnetMarketOptions, 'byOutput' | 'models'> & { models?: boolean; recordTrades?: boolean; trickle?: boolean; arbitrage?: boolean } = {}): RealnetMarket {
  const ref = parseRefRelease(release);
  const { models, recordTrades, trickle, arbitrage, ...rest } = options;
  const seed = rest.seed ?? 'realnet';
  const tokens = { wrap: WRAP, usdt: USDT, usdc: USDC, ref: REF_TOKEN, treasury: TREASURY };
  // The models ask the market's prices once it runs (they are made in its constructor).
  let market: RealnetMarket | undefined;
  const hosted = models
    ? { models: (chain: RealnetChain) => new HostedModels(chain, vendoredWasm('fungible_token_sdk4.1'), { ...tokens, prices: () => market!.prices() }, { seed, ...(recordTrades ? { recordTrades } : {}), ...(trickle === false ? { trickle } : {}), ...(arbitrage === false ? { arbitrage } : {}) }) }
    : {};
  market = new RealnetMarket(marketWasm(ref), { ...rest, byOutput: refHasSwapByOutput(ref), ...hosted });
  return market;
}

/** The JSON-RPC of that market with its hosted models, as the realnet source runs it (`seed`, `genesisMs`), answering
 * heights up to `final()`; it keeps no history. */
export function realnetRpc(release: string | undefined, options: Pick<RealnetMarketOptions, 'seed' | 'genesisMs'>, final: () => number, viewStateLimitBytes?: number): RealnetRpcChain {
  const market = () => realnetMarket(release, { ...options, history: false, models: true });
  return new RealnetRpcChain({ market, final, ...(viewStateLimitBytes === undefined ? {} : { viewStateLimitBytes }) });
}
