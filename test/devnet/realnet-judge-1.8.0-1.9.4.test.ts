// The contract judges the indexer (test/harness/judge.ts), Ref 1.8.0 and 1.9.4.
import { JUDGE_FILES, judgeReleases } from '../harness/judge.ts';

judgeReleases(JUDGE_FILES[1]!);
