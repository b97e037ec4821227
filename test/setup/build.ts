/**
 * Global setup of the test runs: builds dist/ when the sources changed since the last build, so the tests that start
 * `solgate` processes (bin/solgate.js) run the JavaScript build, as users do, instead of compiling TypeScript at every
 * process start.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

export default function setup(): void {
  // For a run of tests that start no solgate process while the tree does not compile (work in progress elsewhere).
  if (process.env.SOLGATE_TEST_SKIP_BUILD === '1') return;
  const root = join(import.meta.dirname, '..', '..');
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('npm run build failed (see above); the tests that start solgate need the build');
}
