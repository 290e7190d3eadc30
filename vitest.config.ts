import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Hang guards, not speed bounds (the benchmarks measure speed): a test that opens an embedded database or starts a
    // service takes 25 s and more on a 2-core machine under a load average of 10, and 30 s cut such tests off.
    testTimeout: 90_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one on a 2-core machine. Most of the slow files wait on the
    // processes they start (the service, Chroma, npm), so two workers there took the suite from 13.4 to 10.2 minutes.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
