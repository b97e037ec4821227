/**
 * The files a replay reads, in its order: a module of its own (no decoding code), so that `solgate replay` can list
 * them and start decoding the first ones before it loads the ingester (src/cli/main.ts).
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Expands `paths` into the list of files to replay: files as given, directories recursively in sorted name order
 * (dot-files skipped). Throws an Error naming the path when it does not exist or cannot be read.
 */
export async function listReplayFiles(paths: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const p of paths) await expand(p, out);
  return out;
}

async function expand(path: string, out: string[]): Promise<void> {
  let st;
  try {
    st = await stat(path);
  } catch (e) {
    throw new Error(`replay: cannot read ${path}: ${(e as Error).message}`, { cause: e });
  }
  if (!st.isDirectory()) {
    out.push(path);
    return;
  }
  let names: string[];
  try {
    names = await readdir(path);
  } catch (e) {
    throw new Error(`replay: cannot list directory ${path}: ${(e as Error).message}`, { cause: e });
  }
  for (const n of names.filter((n) => !n.startsWith('.')).sort(byName)) await expand(join(path, n), out);
}
