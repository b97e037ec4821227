import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * `npm test`: every test file but the end-to-end and full-replay suites below (`npm run test:e2e`,
 * vitest.e2e.config.ts) and the reliability suite (`npm run test:reliability`). CI runs all three.
 */
export const E2E_FILES = [
  // Real processes: `npm start`, `solgate serve|ingest|replay|keys` children, the built-in localnet with its workload.
  'test/e2e/**/*.test.ts',
  'test/cli/cli.test.ts',
  'test/cli/replay-serve.test.ts',
  'test/cli/serve-shutdown.test.ts',
  // Every recorded reference case replayed in every order and merge variant (the files that take minutes).
  'test/das/conformance.test.ts',
  'test/zk/replay-cases.test.ts',
  'test/zk/replay-assertions.test.ts',
  'test/zk/harness.test.ts',
  'test/ingest/zk-ingest.test.ts',
  'test/ingest/replay-idempotent.test.ts',
];

/** Test files run at once: most wait on I/O (databases, sockets, the localnet's slots), so more than the cores. */
export const WORKERS = Math.min(4, availableParallelism() + 1);

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    exclude: ['test/reliability/**', 'node_modules/**', ...E2E_FILES],
    // The tests that start `solgate` processes run the JavaScript build, as users do: built once per run when stale.
    globalSetup: ['test/setup/build.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Test files share one PostgreSQL server when DATABASE_URL is set; each file makes its own database.
    fileParallelism: true,
    pool: 'forks',
    maxWorkers: WORKERS,
    minWorkers: 1,
    // helius-sdk goes through Vite so a test can supply the one @solana/kit 6 export it imports that kit 8 renamed
    // (test/sender/sender.test.ts).
    server: { deps: { inline: ['helius-sdk'] } },
  },
});
