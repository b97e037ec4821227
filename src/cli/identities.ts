/**
 * `solgate identities import FILE`: load known entities for the identity endpoints. Rows that fail validation are
 * listed and nothing of the file is written unless every row is valid. While a server owns the embedded data
 * directory, the rows go through its admin API (src/cli/admin-client.ts).
 */
import { loadConfig } from '../config/index.js';
import { readIdentityFile } from '../identity/import-file.js';
import { adminCall, runningServer } from './admin-client.js';
import { UsageError } from './usage-error.js';

export const IDENTITIES_USAGE = 'solgate identities import FILE   (CSV with address,name,type,category[,tags], or a JSON array)';
/** Rows and bytes per admin API request (under its limits: 10,000 rows, 4 MiB). */
const CHUNK_ROWS = 5_000;
const CHUNK_BYTES = 2 * 1024 * 1024;

export async function runIdentities(args: string[]): Promise<number> {
  const [sub, file, ...extra] = args;
  if (sub !== 'import') throw new UsageError(sub ? `identities: unknown subcommand '${sub}' (import)` : 'identities needs a subcommand (import)', IDENTITIES_USAGE);
  if (!file || extra.length) throw new UsageError('identities import needs exactly one FILE', IDENTITIES_USAGE);
  let parsed;
  try {
    parsed = readIdentityFile(file);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new UsageError(err.code === 'ENOENT' ? `no such file: ${file}` : err.message, IDENTITIES_USAGE);
  }
  const { identities, errors } = parsed;
  if (errors.length) {
    for (const e of errors.slice(0, 50)) console.error(`rejected: ${e}`);
    if (errors.length > 50) console.error(`… and ${errors.length - 50} more`);
    console.error(`solgate: ${errors.length} invalid rows in ${file}; nothing imported (fix them, or remove them from the file)`);
    return 1;
  }
  const config = loadConfig();
  const server = await runningServer(config);
  let n = 0;
  if (server) {
    let chunk: typeof identities = [];
    let bytes = 0;
    const send = async () => {
      if (chunk.length) n += (await adminCall<{ imported: number }>(server, 'POST', '/identities', { identities: chunk })).imported;
      chunk = [];
      bytes = 0;
    };
    for (const id of identities) {
      const size = JSON.stringify(id).length + 1;
      if (chunk.length >= CHUNK_ROWS || bytes + size > CHUNK_BYTES) await send();
      chunk.push(id);
      bytes += size;
    }
    await send();
  } else {
    const [{ openRuntime }, { upsertIdentities }] = await Promise.all([import('./runtime.js'), import('../store/identities.js')]);
    const rt = await openRuntime({ logTo: 'stderr' });
    try {
      n = await upsertIdentities(rt.db, identities);
    } finally {
      await rt.db.close();
    }
  }
  console.log(`imported ${n} identities from ${file}`);
  return 0;
}
