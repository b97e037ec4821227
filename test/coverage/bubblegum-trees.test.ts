/**
 * Bubblegum trees of an index that began after the cluster's first slot: the trees the cluster holds are listed from
 * both account compression programs (headers only), those created before the origin are queued for the history
 * backfill, other programs' trees and later trees are not; a proof of a tree whose early history the index lacks
 * says whether it is being read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { getConcurrentMerkleTreeHeaderSerializer } from '@metaplex-foundation/spl-account-compression';
import { publicKey as umiKey } from '@metaplex-foundation/umi';
import { generateKeyPairSigner } from '@solana/kit';
import { createLocalnet, type Localnet } from '../../src/sources/localnet/index.js';
import { createRpcClient, type RpcClient } from '../../src/sources/rpc-client.js';
import { bubblegumTreeConfig, parseMerkleTreeHeader } from '../../src/parsers/account-compression/tree-header.js';
import { MPL_ACCOUNT_COMPRESSION_PROGRAM, SPL_ACCOUNT_COMPRESSION_PROGRAM } from '../../src/parsers/account-compression/events.js';
import { queueBubblegumTrees } from '../../src/ingest/tree-backfill.js';
import { enqueueBackfill, getBackfills } from '../../src/store/backfill.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { applyInputs, callRpc, loadCases } from '../das/harness.js';

const logger = pino({ level: 'silent' });

/** A tree account's data as the generated spl-account-compression serializer writes its header, then the tree. */
function treeAccount(o: { depth: number; buffer: number; authority: string; creationSlot: bigint }): Uint8Array {
  const h = getConcurrentMerkleTreeHeaderSerializer().serialize({
    accountType: 1, // CompressionAccountType::ConcurrentMerkleTree
    header: { __kind: 'V1', maxBufferSize: o.buffer, maxDepth: o.depth, authority: umiKey(o.authority), creationSlot: o.creationSlot, padding: [0, 0, 0, 0, 0, 0] },
  } as never);
  const out = new Uint8Array(h.length + 256);
  out.set(h);
  return out;
}

describe('concurrent Merkle tree headers', () => {
  it('read as the generated serializer writes them', async () => {
    const authority = (await generateKeyPairSigner()).address;
    const data = treeAccount({ depth: 14, buffer: 64, authority, creationSlot: 123_456_789n });
    expect(parseMerkleTreeHeader(data)).toEqual({ maxDepth: 14, maxBufferSize: 64, authority, creationSlot: 123_456_789 });
    expect(parseMerkleTreeHeader(data.subarray(0, 56))).not.toBeNull();
    expect(parseMerkleTreeHeader(new Uint8Array(56))).toBeNull(); // uninitialised
  });
});

describe('the Bubblegum trees of a cluster', () => {
  let net: Localnet;
  let client: RpcClient;
  let ta: TestApp;
  const trees: Record<string, string> = {};
  beforeAll(async () => {
    const key = async () => (await generateKeyPairSigner()).address as string;
    for (const k of ['splOld', 'mplOld', 'splNew', 'notBubblegum']) trees[k] = await key();
    const account = async (name: string, owner: string, creationSlot: bigint, authority?: string) => ({
      address: trees[name], lamports: 10_000_000n, owner,
      data: treeAccount({ depth: 14, buffer: 64, authority: authority ?? (await bubblegumTreeConfig(trees[name])), creationSlot }),
    });
    net = await createLocalnet({
      slotMs: 0,
      accounts: [
        await account('splOld', SPL_ACCOUNT_COMPRESSION_PROGRAM, 100n),
        await account('mplOld', MPL_ACCOUNT_COMPRESSION_PROGRAM, 900n),
        await account('splNew', SPL_ACCOUNT_COMPRESSION_PROGRAM, 5_000n),
        await account('notBubblegum', SPL_ACCOUNT_COMPRESSION_PROGRAM, 100n, await key()),
      ],
    });
    client = createRpcClient({ url: net.url, maxRetries: 1 });
    ta = await createTestApp();
  });
  afterAll(async () => {
    await client?.close();
    await ta?.close();
    await net?.close();
  });

  it('queues the trees created before the origin, of both compression programs, and only Bubblegum\'s', async () => {
    expect(await queueBubblegumTrees({ db: ta.t.db, client, commitment: 'confirmed', logger }, 1_000)).toBe(2);
    const rows = await getBackfills(ta.t.db, Object.values(trees));
    expect([...rows.keys()].sort()).toEqual([trees.splOld, trees.mplOld].sort());
    for (const r of rows.values()) expect(r.status).toBe('pending');
    // Queued again (a restart before the first live block): nothing doubles.
    expect(await queueBubblegumTrees({ db: ta.t.db, client, commitment: 'confirmed', logger }, 1_000)).toBe(2);
    expect((await ta.t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM backfill_addresses')).rows[0].n).toBe(2);
    // An index that began at slot 0 has every tree already.
    expect(await queueBubblegumTrees({ db: ta.t.db, client, commitment: 'confirmed', logger }, 0)).toBe(0);
  });
});

describe('a proof on a tree whose early history the index lacks', () => {
  // The recorded mint of a leaf of a mainnet tree that had 58 leaves before it.
  const CASE = loadCases().find((c) => c.id === 'asset_decompress')!;
  const MINT = CASE.inputs.filter((g) => g[0].kind === 'transaction' && g[0].decoded.split('/').pop()!.startsWith('55tQ'));
  let ta: TestApp;
  beforeAll(async () => {
    ta = await createTestApp();
    await applyInputs(ta, MINT);
  });
  afterAll(async () => ta?.close());

  it('says the history is missing, and that it is being read once the tree is queued', async () => {
    const id = (CASE.params as { id: string }).id;
    const before = await callRpc(ta, 'getAssetProof', { id });
    expect(before.error?.code).toBe(-32000);
    expect(before.error?.message).toMatch(/^Proof not available: the index does not hold the whole history of tree \w+$/);
    const tree = before.error!.message.split(' ').pop()!;
    await enqueueBackfill(ta.t.db, [tree]);
    const after = await callRpc(ta, 'getAssetProof', { id });
    expect(after.error?.message).toBe(`Proof not available: the index does not hold the whole history of tree ${tree} yet (it is being read from the cluster; try again later)`);
  });
});
