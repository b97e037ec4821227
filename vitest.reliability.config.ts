import { defineConfig } from 'vitest/config';

/**
 * `npm run test:reliability`: crash, fault, load, hostile-input and security suites. Short variants by
 * default (CI); `SOLGATE_RELIABILITY_LONG=1` runs the long ones. Each suite records its figures with
 * test/reliability/report.ts; the summary is printed at the end and written to .reliability-out/report.json.
 */
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.test.ts'],
    testTimeout: 30 * 60_000,
    hookTimeout: 10 * 60_000,
    // Suites kill processes, load the machine and measure memory: one file at a time.
    fileParallelism: false,
    pool: 'forks',
    globalSetup: ['test/setup/build.ts', 'test/reliability/global-setup.ts'],
    server: { deps: { inline: ['helius-sdk'] } },
  },
});
