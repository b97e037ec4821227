import { defineConfig } from 'vitest/config';
import base, { E2E_FILES } from './vitest.config.js';

/**
 * `npm run test:e2e`: the end-to-end runs of real processes and the full reference replays (vitest.config.ts lists
 * them). Two files at a time: each drives processes, a local chain or minutes of replays of its own.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: E2E_FILES,
    exclude: ['node_modules/**'],
    maxWorkers: 2,
    testTimeout: 180_000,
  },
});
