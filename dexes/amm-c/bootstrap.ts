// AmmC's state at one block, through the engine's views (README.md "Bootstrap"). `dex.intear.near`'s `dex_view
// {dex_id, method, args}` runs a view of the xyk DEX's wasm with borsh args (base64) and answers its borsh result as
// a base64 JSON string: `get_pool_count` -> u32, `get_pools {start_index: u32, limit: u32}` -> Vec<PoolView>,
// `get_pool {pool_id: u32}` -> Option<PoolView>. A PoolView is the one `pool_updated` carries (the same conversion of
// the stored pool, fees at the block included), so it is read into that event's JSON shape and then read as the
// decoder reads the event: each state equals the one the indexer holds. Pure but for `at`.
import { BorshError, BorshReader, BorshWriter } from '../../near/borsh.ts';
import { PoolsImportError, type BootstrapEvent, type BootstrapState, type ChainAt, type DexBootstrap } from '../dex.ts';
import { ammCPoolStateOfView } from './decode.ts';
import { AMM_C_DEX_ID } from './events.ts';

/** Pools per `get_pools` call: the engine interprets the DEX's wasm inside the view, so pages stay small (a view
 * has 300 TGas on a default node). */
export const AMM_C_POOLS_PAGE = 20;

/** A tag no variant of the source read has (a newer contract): the pool cannot be read past it. */
class UnknownVariant extends Error {}

type Json = Record<string, unknown>;

export const ammCBootstrap: DexBootstrap = {
  async read(at: ChainAt): Promise<BootstrapState> {
    const engine = at.contracts.AmmC;
    const dexId = at.contracts.AmmCXykDexId;
    /** One xyk view through `dex_view`, its borsh answer read whole by `read`; any misfit names the call. */
    const xykView = async <T>(method: string, args: BorshWriter, what: string, read: (r: BorshReader) => T): Promise<T> => {
      const call = `${engine}.dex_view ${dexId} ${what} at block ${at.height}`;
      const answer = await at.view(engine, 'dex_view', { dex_id: dexId, method, args: Buffer.from(args.bytes()).toString('base64') });
      if (typeof answer !== 'string' || !isBase64(answer)) throw new PoolsImportError(`${call}: the answer ${JSON.stringify(answer)?.slice(0, 80)} is not base64`);
      const r = BorshReader.fromBase64(answer);
      try {
        const value = read(r);
        r.done(what);
        return value;
      } catch (err) {
        if (err instanceof BorshError) throw new PoolsImportError(`${call}: ${err.message}`);
        throw err;
      }
    };

    const count = await xykView('get_pool_count', new BorshWriter(), 'get_pool_count', (r) => r.u32());
    const views: Array<{ poolId: number; view: Json | UnknownVariant }> = [];
    for (let from = 0; from < count; from += AMM_C_POOLS_PAGE) {
      const limit = Math.min(AMM_C_POOLS_PAGE, count - from);
      const what = `get_pools {start_index: ${from}, limit: ${limit}}`;
      let page: Json[] | null;
      try {
        page = await xykView('get_pools', new BorshWriter().u32(from).u32(limit), what, (r) => r.vec(poolView));
      } catch (err) {
        if (!(err instanceof UnknownVariant)) throw err;
        page = null;
      }
      if (page !== null && page.length !== limit) throw new PoolsImportError(`${engine}.dex_view ${dexId} ${what} at block ${at.height}: ${page.length} pools of the ${count} counted`);
      // A pool the page cannot be read past: the page's pools one by one, that one counted out.
      for (let i = 0; i < limit; i++) {
        const poolId = from + i;
        if (page !== null) {
          views.push({ poolId, view: page[i]! });
          continue;
        }
        const view = await xykView('get_pool', new BorshWriter().u32(poolId), `get_pool {pool_id: ${poolId}}`, (r) => {
          try {
            return r.option(poolView);
          } catch (err) {
            if (!(err instanceof UnknownVariant)) throw err;
            r.offset = r.bytes.length; // the rest is that variant's, unread
            return err;
          }
        });
        if (view === null) throw new PoolsImportError(`${engine}.dex_view ${dexId} get_pool {pool_id: ${poolId}} at block ${at.height}: no pool of the ${count} counted`);
        views.push({ poolId, view });
      }
    }

    const events: BootstrapEvent[] = [];
    const skipped: Record<string, number> = {};
    const skip = (kind: string) => (skipped[kind] = (skipped[kind] ?? 0) + 1);
    for (const { poolId, view } of views) {
      if (view instanceof UnknownVariant) {
        skip('unknown variant');
        continue;
      }
      const read = ammCPoolStateOfView(view);
      if ('otherAssetKind' in read) skip(read.otherAssetKind);
      else if ('unreadable' in read) throw new PoolsImportError(`${engine}.dex_view ${dexId} get_pools at block ${at.height}: pool ${poolId}: ${read.unreadable}`);
      else events.push({ kind: 'pool_state', dex: AMM_C_DEX_ID, contractId: engine, poolId, state: read.state, source: 'rpc' });
    }
    return { events, skipped };
  },
  skipReasons: {
    nep245: 'a NEP-245 asset: our token vocabulary has no id for it (the decoder skips these pools too)',
    nep171: 'a NEP-171 asset: our token vocabulary has no id for it (the decoder skips these pools too)',
    'unknown variant': 'a pool, asset, fee receiver or fee amount of a variant newer than the contract source read (dexes/amm-c/README.md)',
  },
};

function isBase64(text: string): boolean {
  return text.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(text);
}

// ---- borsh PoolView -> the JSON serde gives it (INTEARnear/dex dexes/xyk/types: PoolView and what it holds) ----

/** `PoolView`: Private {assets, fees, fee_configuration, owner_id, locked} | Public {assets, fees, fee_configuration,
 * total_shares: Option<U128>} | Launch {near_amount, launched_asset, fees, fee_configuration, phantom_liquidity_near}
 * | LaunchV2 {quote_asset, launched_asset, fees, fee_configuration, phantom_liquidity}. */
function poolView(r: BorshReader): Json {
  const variant = r.u8();
  switch (variant) {
    case 0:
      return { Private: { assets: [assetWithBalance(r), assetWithBalance(r)], fees: currentFees(r), fee_configuration: feeConfiguration(r), owner_id: r.string(), locked: r.bool() } };
    case 1:
      return { Public: { assets: [assetWithBalance(r), assetWithBalance(r)], fees: currentFees(r), fee_configuration: feeConfiguration(r), total_shares: r.option(u128) } };
    case 2:
      return { Launch: { near_amount: u128(r), launched_asset: assetWithBalance(r), fees: currentFees(r), fee_configuration: feeConfiguration(r), phantom_liquidity_near: u128(r) } };
    case 3:
      return { LaunchV2: { quote_asset: assetWithBalance(r), launched_asset: assetWithBalance(r), fees: currentFees(r), fee_configuration: feeConfiguration(r), phantom_liquidity: u128(r) } };
    default:
      throw new UnknownVariant(`PoolView variant ${variant}`);
  }
}

/** U128 as serde writes it: a decimal string. */
function u128(r: BorshReader): string {
  return r.u128().toString();
}

function assetWithBalance(r: BorshReader): Json {
  return { asset_id: assetId(r), balance: u128(r) };
}

/** `AssetId` Near | Nep141(account) | Nep245(account, token) | Nep171(account, token), as its Display writes it. */
function assetId(r: BorshReader): string {
  const variant = r.u8();
  switch (variant) {
    case 0:
      return 'near';
    case 1:
      return `nep141:${r.string()}`;
    case 2:
      return `nep245:${r.string()}:${r.string()}`;
    case 3:
      return `nep171:${r.string()}:${r.string()}`;
    default:
      throw new UnknownVariant(`AssetId variant ${variant}`);
  }
}

/** `FeeReceiver` Account(id) | Pool | Community(id). */
function feeReceiver(r: BorshReader): unknown {
  const variant = r.u8();
  switch (variant) {
    case 0:
      return { Account: r.string() };
    case 1:
      return 'Pool';
    case 2:
      return { Community: r.string() };
    default:
      throw new UnknownVariant(`FeeReceiver variant ${variant}`);
  }
}

/** `CurrentFees {receivers: Vec<(FeeReceiver, u32)>}`. */
function currentFees(r: BorshReader): Json {
  return { receivers: r.vec((x) => [feeReceiver(x), x.u32()]) };
}

/** `FeeConfiguration` V1(CurrentFees) | V2 {receivers: Vec<(FeeReceiver, FeeAmount)>} (serde: untagged). Read to get
 * past it; the state does not keep it. */
function feeConfiguration(r: BorshReader): Json {
  const variant = r.u8();
  if (variant === 0) return currentFees(r);
  if (variant !== 1) throw new UnknownVariant(`FeeConfiguration variant ${variant}`);
  return { receivers: r.vec((x) => [feeReceiver(x), feeAmount(x)]) };
}

/** `FeeAmount` Fixed(u32) | Scheduled {start: (u64, u32), end: (u64, u32), curve: Linear} | Dynamic {min, max}. */
function feeAmount(r: BorshReader): unknown {
  const variant = r.u8();
  switch (variant) {
    case 0:
      return { Fixed: r.u32() };
    case 1: {
      // Timestamps in ns, past 2^53: kept as text.
      const start = [String(r.u64()), r.u32()];
      const end = [String(r.u64()), r.u32()];
      const curve = r.u8();
      if (curve !== 0) throw new UnknownVariant(`ScheduledFeeCurve variant ${curve}`);
      return { Scheduled: { start, end, curve: 'Linear' } };
    }
    case 2:
      return { Dynamic: { min: r.u32(), max: r.u32() } };
    default:
      throw new UnknownVariant(`FeeAmount variant ${variant}`);
  }
}
