// The contract judges the indexer (test/harness/judge.ts), Ref 1.6.2 and 1.7.2.
import { JUDGE_FILES, judgeReleases } from '../harness/judge.ts';

judgeReleases(JUDGE_FILES[0]!);
