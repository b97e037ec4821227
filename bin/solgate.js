#!/usr/bin/env node
// Entry point of the `solgate` command. Runs the JavaScript build in dist/ (made by `npm run build`, which `npm ci`
// runs) when it is current; when a file under src/ is newer than the build (or there is no build), it runs the
// TypeScript sources through tsx's loader instead, which is correct but compiles on every start (seconds).
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import { buildIsCurrent } from '../scripts/build-state.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

if (buildIsCurrent(root)) {
  await import(pathToFileURL(join(root, 'dist', 'cli', 'main.js')).href);
} else {
  if (process.env.LOG_LEVEL === 'debug' || process.env.LOG_LEVEL === 'trace')
    process.stderr.write('solgate: no current build in dist/ (run `npm run build`); running the TypeScript sources through tsx\n');
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(join(root, 'src', 'cli', 'main.ts')).href);
}
