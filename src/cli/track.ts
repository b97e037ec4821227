/**
 * `solgate track ADDRESS...` (or `--file FILE`, one address per line): put addresses on the watch list, so the
 * process that ingests (serve with SOLANA_RPC_URL) reads their state from the cluster ahead of their first request
 * and backfills their history (docs/coverage.md). With `--collection`, `--creator` or `--authority` first, the keys
 * are watched for the DAS lists instead: their assets are read ahead of the first getAssetsByGroup / ByCreator /
 * ByAuthority request. The list lives in the database: while a server owns the embedded data directory the
 * addresses go through its admin API; otherwise they are written directly and any `serve` with a cluster RPC picks
 * them up within seconds.
 */
import { readFileSync } from 'node:fs';
import { loadConfig } from '../config/index.js';
import type { KeyNeed } from '../core/coverage.js';
import { isAddress } from '../core/encoding.js';
import { adminCall, runningServer } from './admin-client.js';
import { UsageError } from './usage-error.js';

export const TRACK_USAGE = 'solgate track [--collection | --creator | --authority] ADDRESS... | solgate track [--collection | --creator | --authority] --file FILE   (one address per line)';

/** `--collection` etc.: the need the keys are watched for, and the admin API's list name. */
const KEY_FLAGS: Record<string, [KeyNeed, string, string]> = {
  '--collection': ['group', 'collections', 'collection'],
  '--creator': ['creator', 'creators', 'creator'],
  '--authority': ['authority', 'authorities', 'authority'],
};
/** Addresses per admin API request (its limit is 10,000). */
const CHUNK = 5_000;

export async function runTrack(argv: string[]): Promise<number> {
  const keyed = KEY_FLAGS[argv[0]];
  const args = keyed ? argv.slice(1) : argv;
  let addresses: string[] = [];
  if (args[0] === '--file') {
    if (args.length !== 2) throw new UsageError('track --file needs exactly one FILE', TRACK_USAGE);
    let text: string;
    try {
      text = readFileSync(args[1], 'utf8');
    } catch (e) {
      throw new UsageError((e as NodeJS.ErrnoException).code === 'ENOENT' ? `no such file: ${args[1]}` : (e as Error).message, TRACK_USAGE);
    }
    addresses = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  } else addresses = args;
  if (!addresses.length) throw new UsageError('track needs at least one ADDRESS', TRACK_USAGE);
  const bad = addresses.filter((a) => !isAddress(a));
  if (bad.length) throw new UsageError(`not a Solana address: ${bad.slice(0, 5).join(', ')}${bad.length > 5 ? ` (and ${bad.length - 5} more)` : ''}; nothing tracked`, TRACK_USAGE);
  const unique = [...new Set(addresses)];

  const config = loadConfig();
  const server = await runningServer(config);
  if (keyed) return trackKeys(keyed, unique, server);
  if (server) {
    for (let i = 0; i < unique.length; i += CHUNK) await adminCall(server, 'POST', '/track', { addresses: unique.slice(i, i + CHUNK) });
    console.log(`${unique.length} address${unique.length === 1 ? '' : 'es'} on the watch list; the running server reads them now`);
    return 0;
  }
  const [{ openRuntime }, { trackAddresses }, { enqueueBackfill }] = await Promise.all([
    import('./runtime.js'), import('../store/coverage.js'), import('../store/backfill.js'),
  ]);
  const rt = await openRuntime({ logTo: 'stderr' });
  try {
    await rt.db.tx(async (q) => {
      await trackAddresses(q, unique);
      await enqueueBackfill(q, unique);
    });
  } finally {
    await rt.db.close();
  }
  console.log(`${unique.length} address${unique.length === 1 ? '' : 'es'} on the watch list; a \`solgate serve\` with SOLANA_RPC_URL reads them (state now, history in the background)`);
  return 0;
}

/** `--collection|--creator|--authority KEY...`: the keys on the watch list for the DAS lists. */
async function trackKeys([need, list, noun]: [KeyNeed, string, string], keys: string[], server: Awaited<ReturnType<typeof runningServer>>): Promise<number> {
  const what = `${keys.length} ${noun}${keys.length === 1 ? '' : 's'}`;
  if (server) {
    for (let i = 0; i < keys.length; i += CHUNK) await adminCall(server, 'POST', '/track', { [list]: keys.slice(i, i + CHUNK) });
    console.log(`${what} on the watch list; the running server reads ${keys.length === 1 ? 'its' : 'their'} assets now`);
    return 0;
  }
  const [{ openRuntime }, store] = await Promise.all([import('./runtime.js'), import('../store/key-coverage.js')]);
  const rt = await openRuntime({ logTo: 'stderr' });
  try {
    await store.trackKeys(rt.db, need, keys);
  } finally {
    await rt.db.close();
  }
  console.log(`${what} on the watch list; a \`solgate serve\` with SOLANA_RPC_URL reads ${keys.length === 1 ? 'its' : 'their'} assets`);
  return 0;
}
