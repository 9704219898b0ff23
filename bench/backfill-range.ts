// One range worker of bench:backfill's parallel phase, a process of its own as `dexlake index --range i/N` would be:
// ingests the range it is given into the database and answers with the ingest's wall time and CPU (every thread).
import { connect } from '../db/connect.ts';
import { ingestRange } from '../indexer/backfill.ts';
import { filesSource } from '../indexer/sources/files.ts';

const { url, dir, from, to } = JSON.parse(process.argv[2]!) as { url: string; dir: string; from: number; to: number };
const db = connect(url);
// From here: the process's start (loading tsx and the modules) is once a run, not a cost a block.
const cpuBefore = process.cpuUsage();
const t = performance.now();
const result = await ingestRange({ db, source: filesSource(dir), range: { from, to }, signal: new AbortController().signal });
const s = (performance.now() - t) / 1000;
await db.close();
const { user, system } = process.cpuUsage(cpuBefore);
process.send!({ s, cpuS: (user + system) / 1e6, ...result }, () => process.disconnect());
