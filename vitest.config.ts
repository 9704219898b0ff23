import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/reliability/**', '**/node_modules/**'],
    globalSetup: ['test/harness/global-setup.ts'],
    // Two files at a time whatever the core count (vitest's default is cores - 1: one on a 2-core machine). Much of a
    // file's time is waiting on PostgreSQL, a child process or a browser, which the other file's work fills.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
