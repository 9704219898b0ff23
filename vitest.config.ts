import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/reliability/**', '**/node_modules/**'],
    globalSetup: ['test/harness/global-setup.ts'],
    // Two files at a time whatever the core count (vitest's default is cores - 1: one on a 2-core machine). Much of a
    // file's time is waiting on PostgreSQL, a child process or a browser, which the other file's work fills.
    maxWorkers: 2,
    // Guards against a hang, not limits on speed (speed is bench/'s): with two files sharing two cores, a test that
    // starts processes (start.test's embedded PostgreSQL, the chain) can take twice its time on a quiet machine.
    testTimeout: 90_000,
    hookTimeout: 180_000,
  },
});
