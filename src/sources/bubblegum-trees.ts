/**
 * Which Bubblegum trees the cluster holds: the concurrent Merkle tree accounts of both account compression programs
 * (`getProgramAccounts`, `memcmp` on the account type, a 56-byte `dataSlice`: only the headers are downloaded) whose
 * authority is the tree's Bubblegum TreeConfig PDA, with their creation slots.
 */
import { bytesToBase58 } from '../core/encoding.js';
import { MPL_ACCOUNT_COMPRESSION_PROGRAM, SPL_ACCOUNT_COMPRESSION_PROGRAM } from '../parsers/account-compression/events.js';
import { bubblegumTreeConfig, CONCURRENT_MERKLE_TREE_ACCOUNT, MERKLE_TREE_HEADER_BYTES, parseMerkleTreeHeader } from '../parsers/account-compression/tree-header.js';
import type { HistoryOptions } from './address-history.js';
import type { RpcClient } from './rpc-client.js';

export interface BubblegumTree {
  tree: string;
  program: string;
  maxDepth: number;
  creationSlot: number;
}

export async function listBubblegumTrees(client: RpcClient, opts: HistoryOptions): Promise<BubblegumTree[]> {
  const out: BubblegumTree[] = [];
  for (const program of [SPL_ACCOUNT_COMPRESSION_PROGRAM, MPL_ACCOUNT_COMPRESSION_PROGRAM]) {
    const res = await client.call<unknown>('getProgramAccounts', [program, {
      encoding: 'base64',
      commitment: opts.commitment,
      dataSlice: { offset: 0, length: MERKLE_TREE_HEADER_BYTES },
      filters: [{ memcmp: { offset: 0, bytes: bytesToBase58(new Uint8Array([CONCURRENT_MERKLE_TREE_ACCOUNT])) } }],
    }], opts.signal);
    if (!Array.isArray(res)) throw new Error(`getProgramAccounts ${program}: expected a list, got ${JSON.stringify(res)?.slice(0, 200)}`);
    for (const e of res as { pubkey?: unknown; account?: { data?: unknown } }[]) {
      const data = e?.account?.data;
      if (typeof e?.pubkey !== 'string' || !Array.isArray(data) || typeof data[0] !== 'string') throw new Error(`getProgramAccounts ${program}: malformed entry ${JSON.stringify(e)?.slice(0, 200)}`);
      const h = parseMerkleTreeHeader(new Uint8Array(Buffer.from(data[0], 'base64')));
      if (h && h.authority === (await bubblegumTreeConfig(e.pubkey))) out.push({ tree: e.pubkey, program, maxDepth: h.maxDepth, creationSlot: h.creationSlot });
    }
  }
  return out;
}
