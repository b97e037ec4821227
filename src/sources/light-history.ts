/**
 * History source for the ZK Compression trees: which Merkle trees the account compression program holds
 * (`getProgramAccounts` with an 8-byte `dataSlice`, so multi-megabyte V2 tree accounts are not downloaded), and the
 * signatures of an address older than a slot (`getSignaturesForAddress` paged back to its first transaction).
 */
import { isLightTreeDiscriminator, ACCOUNT_COMPRESSION_PROGRAM } from '../parsers/light-trees/index.js';
import { fetchSignaturePage, MAX_SIGNATURES_PER_PAGE, type HistoryOptions, type SignatureInfo } from './address-history.js';
import type { RpcClient } from './rpc-client.js';

/** The addresses of every Merkle tree account of the account compression program (V1 state/address, V2). */
export async function listLightTreeAccounts(client: RpcClient, opts: HistoryOptions): Promise<string[]> {
  const res = await client.call<unknown>(
    'getProgramAccounts',
    [ACCOUNT_COMPRESSION_PROGRAM, { encoding: 'base64', commitment: opts.commitment, dataSlice: { offset: 0, length: 8 } }],
    opts.signal,
  );
  if (!Array.isArray(res)) throw new Error(`getProgramAccounts: expected a list, got ${JSON.stringify(res)?.slice(0, 200)}`);
  const out: string[] = [];
  for (const e of res as { pubkey?: unknown; account?: { data?: unknown } }[]) {
    const data = e?.account?.data;
    if (typeof e?.pubkey !== 'string' || !Array.isArray(data) || typeof data[0] !== 'string') throw new Error(`getProgramAccounts: malformed entry ${JSON.stringify(e)?.slice(0, 200)}`);
    if (isLightTreeDiscriminator(new Uint8Array(Buffer.from(data[0], 'base64')))) out.push(e.pubkey);
  }
  return out.sort();
}

/** Every signature of `address` in a slot before `beforeSlot`, newest first (all pages back to its first one). */
export async function signaturesBefore(client: RpcClient, address: string, beforeSlot: number, opts: HistoryOptions): Promise<SignatureInfo[]> {
  const out: SignatureInfo[] = [];
  let cursor: string | null = null;
  for (;;) {
    const page = await fetchSignaturePage(client, address, cursor, { ...opts, limit: MAX_SIGNATURES_PER_PAGE });
    for (const s of page) if (s.slot < beforeSlot) out.push(s);
    if (page.length < MAX_SIGNATURES_PER_PAGE) return out;
    cursor = page[page.length - 1].signature;
  }
}
