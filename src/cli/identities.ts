/** `solgate identities import FILE`: load known entities for the identity endpoints. */
import { openRuntime } from './runtime.js';
import { readIdentityFile } from '../identity/import-file.js';
import { upsertIdentities } from '../store/identities.js';
import { UsageError } from './usage-error.js';

export async function runIdentities(args: string[]): Promise<number> {
  const [sub, file] = args;
  if (sub !== 'import' || !file) throw new UsageError('usage: solgate identities import FILE');
  const { identities, errors } = readIdentityFile(file);
  for (const e of errors) console.error(`rejected: ${e}`);
  const rt = await openRuntime();
  try {
    const n = await upsertIdentities(rt.db, identities);
    console.log(`imported ${n} identities from ${file}${errors.length ? ` (${errors.length} rows rejected)` : ''}`);
  } finally {
    await rt.db.close();
  }
  return errors.length ? 1 : 0;
}
