import { defineConfig } from 'vitest/config';

// `npm run test:reliability`: the long proofs (crashes, outages, fuzzing, slow clients, the soak). One file at a
// time, so each measures its own processes on a quiet machine.
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.test.ts'],
    globalSetup: ['test/harness/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 120_000,
  },
});
