// `dexlake start` on a fresh data dir, then again on the kept data: time from spawn to GET /health = 200 (ready:
// the database holds a block, so on the fresh dir the realnet's first block is indexed), printed with the ratio to the
// foundation issue's ceilings (20 s fresh, 5 s restart; below 1.00 is within), and the time to the api's first answer
// (a 503 on the fresh dir, before that block).
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../db/embedded.ts';
import { runDexlake, waitForAnswer, waitForOk } from '../test/harness/cli.ts';

const dataDir = path.join(tmpdir(), `dexlake-bench-${randomBytes(6).toString('hex')}`);

async function timeToHealthy(label: string, ceilingMs: number): Promise<void> {
  const port = await freePort();
  const started = performance.now();
  // Free ports for the realnet's relay and RPC: 3001 and 3002 may be another dexlake's, which would stop this one.
  const running = runDexlake(['start'], { DEXLAKE_DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn', DEXLAKE_RELAY_PORT: '0', DEXLAKE_DEVNET_RPC_PORT: '0' });
  await waitForAnswer(`http://127.0.0.1:${port}/health`, running);
  const answeredMs = performance.now() - started;
  await waitForOk(`http://127.0.0.1:${port}/health`, running);
  const ms = performance.now() - started;
  const stopAt = performance.now();
  running.child.kill('SIGINT');
  const { code } = await running.exited;
  const stopMs = performance.now() - stopAt;
  console.log(
    `startup ${label.padEnd(8)} api answering in ${(answeredMs / 1000).toFixed(2)} s, healthy in ${(ms / 1000).toFixed(2)} s  ceiling ${(ceilingMs / 1000).toFixed(0)} s  ratio ${(ms / ceilingMs).toFixed(2)}  (SIGINT -> exit ${code} in ${(stopMs / 1000).toFixed(2)} s)`,
  );
}

try {
  await timeToHealthy('fresh', 20_000);
  await timeToHealthy('restart', 5_000);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
