// A vitest reporter for .ci/run: each test file's own time (importing it, its suites' callbacks, its tests and hooks)
// written as JSON to the file named by DEXLAKE_DURATIONS (the JSON reporter's start and end times leave hooks out).
import { writeFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

export default class DurationsReporter implements Reporter {
  private readonly files: Array<{ file: string; seconds: number }> = [];

  onTestModuleEnd(module: TestModule): void {
    const d = module.diagnostic();
    this.files.push({ file: module.relativeModuleId, seconds: (d.collectDuration + d.duration) / 1000 });
  }

  onTestRunEnd(): void {
    const out = process.env.DEXLAKE_DURATIONS;
    if (out) writeFileSync(out, JSON.stringify(this.files));
  }
}
