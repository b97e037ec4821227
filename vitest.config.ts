import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // The reliability suite runs on its own (`npm run test:reliability`, vitest.reliability.config.ts).
    exclude: ['test/reliability/**', 'node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Test files share one PostgreSQL server when DATABASE_URL is set; each file makes its own database.
    fileParallelism: true,
    pool: 'forks',
    // helius-sdk goes through Vite so a test can supply the one @solana/kit 6 export it imports that kit 8 renamed
    // (test/sender/sender.test.ts).
    server: { deps: { inline: ['helius-sdk'] } },
  },
});
