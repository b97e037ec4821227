// Builds the JavaScript that `solgate` (bin/solgate.js) and `npm start` run: src/**/*.ts compiled by tsc into dist/
// (same folder layout), the non-code files the code reads beside it (SQL migrations, dashboard files), and a stamp
// whose time bin/solgate.js compares with src/ to tell a current build from a stale one (scripts/build-state.mjs).
// `npm ci` runs it (prepare).
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildIsCurrent } from './build-state.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// `--if-stale`: nothing to do when dist/ is a build of the current sources (the test setup's call).
if (process.argv.includes('--if-stale') && buildIsCurrent(root)) process.exit(0);
const started = Date.now();
let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  // An install without devDependencies: bin/solgate.js runs the TypeScript sources through tsx instead.
  console.error('solgate build: typescript is not installed (devDependencies omitted); skipping the build');
  process.exit(0);
}
const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
if (r.status !== 0) process.exit(r.status ?? 1);
cpSync(join(root, 'src', 'migrations'), join(root, 'dist', 'migrations'), { recursive: true });
cpSync(join(root, 'src', 'api', 'admin', 'static'), join(root, 'dist', 'api', 'admin', 'static'), { recursive: true });
mkdirSync(join(root, 'dist'), { recursive: true });
// The stamp carries the time the build started: a source saved during the build counts as newer.
writeFileSync(join(root, 'dist', '.build-stamp'), `${started}\n`);
console.error(`solgate build: dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s`);
