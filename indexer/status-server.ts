// The indexer serves no API; this small port only lets an orchestrator see that it is alive, how far it got, and
// whether its block source is in trouble. GET /health stays 200 while the source is retrying: the process is
// alive and will go on by itself once the source answers, so restarting it would not help (`source.status` and
// the metrics say what is wrong). It also reports the progress line's reading (blocks/s, the source's blocks in
// flight, the ETA) and bulk-load mode's missing indexes.
import { createServer, type Server } from 'node:http';
import { Registry, collectDefaultMetrics, Counter, Gauge } from 'prom-client';
import type { BulkLoadState } from './pipeline.ts';
import type { ProgressLine } from './progress.ts';
import type { UndecodedCount } from './projections/undecoded.ts';
import type { SourceErrorKind, SourceObserver } from './sources/retry.ts';

export interface SourceHealth {
  /** `retrying`: at least one request to the source is failing and being retried right now. */
  status: 'ok' | 'retrying';
  /** Failed attempts since start. */
  retries: number;
  /** Failed attempts since start, by kind. */
  errors: Partial<Record<SourceErrorKind, number>>;
  /** The latest failed attempt's message (kept after recovery), and when it happened (ISO 8601). */
  last_error: string | null;
  last_error_at: string | null;
  /** When the current trouble began (ISO 8601); null while ok. */
  since: string | null;
}

/** Requests in trouble and what they hit. Pure: the time is given. */
export class SourceTracker {
  #failing = 0;
  #retries = 0;
  readonly #errors: Partial<Record<SourceErrorKind, number>> = {};
  #lastError: string | null = null;
  #lastErrorAt: number | null = null;
  #since: number | null = null;

  /** A failed attempt of a request that will be retried (`attempt` 1 is its first failure). */
  retry(error: unknown, attempt: number, kind: SourceErrorKind, now: number): void {
    if (attempt === 1) this.#failing++;
    this.#since ??= now;
    this.#retries++;
    this.#errors[kind] = (this.#errors[kind] ?? 0) + 1;
    this.#lastError = error instanceof Error ? error.message : String(error);
    this.#lastErrorAt = now;
  }

  /** A retried request is over (it succeeded, or was abandoned). */
  settled(): void {
    this.#failing = Math.max(0, this.#failing - 1);
    if (this.#failing === 0) this.#since = null;
  }

  get failing(): number {
    return this.#failing;
  }

  health(): SourceHealth {
    const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
    return {
      status: this.#failing > 0 ? 'retrying' : 'ok',
      retries: this.#retries,
      errors: { ...this.#errors },
      last_error: this.#lastError,
      last_error_at: iso(this.#lastErrorAt),
      since: iso(this.#since),
    };
  }
}

export interface StatusServer {
  setHeight(height: number): void;
  /** Inputs the decoders could not read, per DEX and kind: `dexlake_indexer_undecoded_total`. */
  addUndecoded(counts: readonly UndecodedCount[]): void;
  /** Give it to the block source (`openSource(spec, { ...status.source })`): /health and /metrics report its trouble. */
  source: Required<SourceObserver>;
  /** Where to read the progress line from (runIndexer's `watchProgress`). */
  watchProgress(line: () => ProgressLine): void;
  /** Bulk-load mode's missing indexes (runIndexer's `onBulkLoad`). */
  setBulkLoad(state: BulkLoadState): void;
  close(): Promise<void>;
  port: number;
}

export async function startStatusServer(port: number, host: string): Promise<StatusServer> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'dexlake_indexer_' });
  const heightGauge = new Gauge({ name: 'dexlake_indexer_height', help: 'Last indexed block height', registers: [registry] });
  const sourceErrors = new Counter({
    name: 'dexlake_indexer_source_errors_total',
    help: 'Failed block source requests that were retried, by kind (http_5xx, http_429, http_4xx, timeout, network, malformed, other)',
    labelNames: ['kind'],
    registers: [registry],
  });
  const undecoded = new Counter({
    name: 'dexlake_indexer_undecoded_total',
    help: 'Log lines and storage writes of known contracts that no decoder could read, by DEX (or core standard) and kind (log, state); kept in the undecoded table (dexlake undecoded)',
    labelNames: ['dex', 'kind'],
    registers: [registry],
  });
  const tracker = new SourceTracker();
  new Gauge({
    name: 'dexlake_indexer_source_retrying',
    help: 'Block source requests failing and being retried right now (0: the source is fine)',
    registers: [registry],
    collect() {
      this.set(tracker.failing);
    },
  });
  let progress: (() => ProgressLine) | undefined;
  let missingIndexes: readonly string[] = [];
  // Unknown values (no ETA without --to or a head, no read-ahead for local sources) are NaN, Prometheus's "no value".
  const gauge = (name: string, help: string, read: (line: ProgressLine) => number | undefined) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set((progress && read(progress())) ?? NaN);
      },
    });
  gauge('dexlake_indexer_blocks_per_second', 'Blocks indexed per second since the indexer started', (l) => l.blocks_per_s);
  gauge('dexlake_indexer_source_in_flight', 'Blocks the source has requested and not received yet (neardata, lake)', (l) => l.in_flight);
  gauge('dexlake_indexer_source_read_ahead', 'Blocks the source may have in flight now: its adaptive read-ahead window (neardata, lake)', (l) => l.read_ahead);
  gauge('dexlake_indexer_head_height', 'The chain head the source last saw (the last block of a set of files)', (l) => l.head);
  gauge('dexlake_indexer_eta_seconds', 'Seconds to --to, else to the head the source knows, at the rate so far', (l) => l.eta_s);
  new Gauge({
    name: 'dexlake_indexer_indexes_missing',
    help: 'History table indexes bulk-load mode has dropped and not built yet (queries that need them are slower meanwhile)',
    registers: [registry],
    collect() {
      this.set(missingIndexes.length);
    },
  });
  let height: number | null = null;
  const server: Server = createServer(async (req, res) => {
    if (req.url === '/health') {
      const line = progress?.();
      const body = {
        ok: true,
        height,
        source: tracker.health(),
        progress: line && { blocks_per_s: line.blocks_per_s, in_flight: line.in_flight ?? null, read_ahead: line.read_ahead ?? null, head: line.head ?? null, eta_s: line.eta_s ?? null },
        // While any is missing, the api answers the queries that would use it by scanning the table: right, but slower.
        bulk_load: missingIndexes.length ? { indexes_missing: missingIndexes, note: 'history indexes are built once the indexer nears the head; queries by token, account or height on transfers, balance history, trade hops and events are slower until then' } : null,
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    } else if (req.url === '/metrics') {
      res.writeHead(200, { 'content-type': registry.contentType }).end(await registry.metrics());
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  return {
    port: (server.address() as { port: number }).port,
    setHeight(h) {
      height = h;
      heightGauge.set(h);
    },
    addUndecoded(counts) {
      for (const { dex, kind, count } of counts) undecoded.inc({ dex, kind }, count);
    },
    source: {
      onRetry(error, attempt, _delayMs, kind) {
        tracker.retry(error, attempt, kind, Date.now());
        sourceErrors.inc({ kind });
      },
      onSettled() {
        tracker.settled();
      },
    },
    watchProgress(line) {
      progress = line;
    },
    setBulkLoad(state) {
      missingIndexes = state.missing;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
