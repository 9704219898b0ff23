import { it } from 'vitest';
import { realnet } from './harness/realnet.ts';
const never = new AbortController().signal;
it('logs', async () => {
  const seen = new Map<string, string>();
  for await (const raw of realnet('tokens').raw({ to: 300 }, never)) {
    const b = JSON.parse(Buffer.from((raw as any).body).toString());
    for (const shard of b.shards) for (const o of shard.receipt_execution_outcomes ?? []) {
      const ex = o.execution_outcome.outcome.executor_id;
      for (const log of o.execution_outcome.outcome.logs) {
        const key = ex + ' ' + log.slice(0, 60).replace(/[0-9]+/g, 'N').replace(/[a-z]+\.near/g, 'A');
        if (!seen.has(key)) seen.set(key, log.slice(0, 400));
      }
    }
  }
  for (const [k, v] of [...seen].sort()) console.log(k, '=>', v);
}, 300_000);
