// Whether dist/ (made by scripts/build.mjs) is current: its stamp holds the time the build started, and no file
// under src/ may have been modified after it. Used by bin/solgate.js (run the build, or the sources through tsx)
// and by the test setup (build once before tests that start `solgate` processes).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newerThan(dir, t) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return false;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory() ? newerThan(p, t) : statSync(p).mtimeMs > t) return true;
  }
  return false;
}

/** True when `root`/dist is a build of the current `root`/src. */
export function buildIsCurrent(root) {
  let started;
  try {
    started = Number(readFileSync(join(root, 'dist', '.build-stamp'), 'utf8').trim());
  } catch {
    return false;
  }
  return Number.isFinite(started) && !newerThan(join(root, 'src'), started);
}
