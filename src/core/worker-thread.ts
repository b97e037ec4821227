/**
 * Worker threads that run this project's modules both from the build (`dist/*.js`) and from the TypeScript sources
 * (tests, tsx): a worker does not inherit its parent's module loader, so a source worker registers tsx's first.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * Starts the worker module `name` (a file beside `from`, the caller's `import.meta.url`, without its extension),
 * as `.js` in the build and as `.ts` from the sources. The thread is named after the module without `-worker`
 * (`replay-decode`, `verify`): the name shows in CPU profiles and, on Linux, as the thread's name in `/proc`.
 */
export function startModuleWorker(from: string, name: string): Worker {
  const fromSource = from.endsWith('.ts');
  const file = new URL(`./${name}.${fromSource ? 'ts' : 'js'}`, from);
  const threadName = name.replace(/-worker$/, '');
  if (!fromSource) return new Worker(file, { name: threadName });
  const boot = `import(${JSON.stringify(tsxLoader())}).then((m) => { m.register(); return import(${JSON.stringify(file.href)}); })`;
  return new Worker(boot, { eval: true, name: threadName });
}

/** tsx's loader API, as a URL a worker can import (import.meta.resolve is missing under some test runners). */
function tsxLoader(): string {
  if (typeof import.meta.resolve === 'function') return import.meta.resolve('tsx/esm/api');
  // The ESM build of the same export (require.resolve gives the CommonJS one).
  return pathToFileURL(join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist', 'esm', 'api', 'index.mjs')).href;
}
