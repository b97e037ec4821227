import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Test files share one PostgreSQL server when DATABASE_URL is set; each file makes its own database.
    fileParallelism: true,
    pool: 'forks',
  },
});
