// The contract judges the indexer (test/harness/judge.ts), Ref 1.9.16 and 1.9.17.
import { JUDGE_FILES, judgeReleases } from '../harness/judge.ts';

judgeReleases(JUDGE_FILES[2]!);
