/**
 * The drift detector's asset and tree kinds, and token accounts the cluster has closed, on a localnet running the demo
 * workload with ZK Compression (Light V1 and V2 trees), plus genesis accounts of programs the localnet cannot run: an
 * MPL Core asset, a Token Metadata NFT (mint, holder token account, metadata) and a Bubblegum-style concurrent Merkle
 * tree, built with the Metaplex clients' own serializers (the tree's indexed root is written by hand, as its change
 * logs would have written it).
 *
 * An uncorrupted index agrees with the cluster on every kind (also the V2 trees' own queues, read from the tree accounts
 * the Light program wrote: zk_queue_next_index); then each kind's corruption is found and counted in
 * /metrics: an NFT's served owner, a Core asset's owner (account row and served row) and an open token account the
 * cluster does not have are repaired from the cluster; a wrong Bubblegum root queues the tree (already backfilled)
 * for a repair run of the history backfill; a wrong ZK Compression root, and a compressed account whose leaf node was corrupted, are reported and left
 * as they are.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { getAssetV1AccountDataSerializer } from '@metaplex-foundation/mpl-core/dist/src/generated/types/assetV1AccountData.js';
import { getMerkleTreeAccountDataSerializer, SPL_ACCOUNT_COMPRESSION_PROGRAM_ID } from '@metaplex-foundation/spl-account-compression';
import { getMetadataAccountDataSerializer } from '@metaplex-foundation/mpl-token-metadata';
import { publicKey } from '@metaplex-foundation/umi';
import { AccountState, getMintEncoder, getTokenEncoder } from '@solana-program/token';
import { address } from '@solana/kit';
import { registry } from '../../src/core/metrics.js';
import { bytesToBase58 } from '../../src/core/encoding.js';
import { createIngester, type Ingester } from '../../src/ingest/pipeline.js';
import { createDriftDetector, type DriftDetector } from '../../src/ingest/drift.js';
import { MPL_CORE_PROGRAM, TOKEN_METADATA_PROGRAM } from '../../src/parsers/asset-accounts.js';
import { TOKEN_PROGRAM } from '../../src/core/programs.js';
import { parseMerkleTreeRoots } from '../../src/parsers/account-compression/tree-roots.js';
import { createLocalnet, startDemoWorkload, type DemoWorkload, type Localnet } from '../../src/sources/localnet/index.js';
import { createRpcClient, type RpcClient } from '../../src/sources/rpc-client.js';
import { createRpcPoller, fetchAccounts } from '../../src/sources/rpc-poller.js';
import { getCheckpoint } from '../../src/store/chain.js';
import { createTestDb, type TestDb } from '../helpers/db.js';

const logger = pino({ level: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const randomKey = () => bytesToBase58(crypto.getRandomValues(new Uint8Array(32)));

const CORE = randomKey();
const CORE_OWNER = randomKey();
const TREE = randomKey();
/** A Token Metadata NFT: its mint, its holder's token account and its metadata account (any address: the row names the mint). */
const NFT = randomKey();
const NFT_OWNER = randomKey();
const NFT_ACCOUNT = randomKey();
const NFT_METADATA = randomKey();
/** The tree's roots after changes 0..5 (change 5 is its current one). */
const ROOTS = Array.from({ length: 6 }, randomKey);

function coreAssetData(): Uint8Array {
  return getAssetV1AccountDataSerializer().serialize({
    key: 1, owner: publicKey(CORE_OWNER), updateAuthority: { __kind: 'None' }, name: 'Drift Core', uri: 'https://example.com/drift-core.json', seq: null,
  } as never);
}

function nftAccounts() {
  const mint = getMintEncoder().encode({ mintAuthority: null, supply: 1n, decimals: 0, isInitialized: true, freezeAuthority: null });
  const token = getTokenEncoder().encode({
    mint: address(NFT), owner: address(NFT_OWNER), amount: 1n, delegate: null, state: AccountState.Initialized, isNative: null, delegatedAmount: 0n, closeAuthority: null,
  });
  const metadata = new Uint8Array(679);
  metadata.set(getMetadataAccountDataSerializer().serialize({
    updateAuthority: publicKey(randomKey()), mint: publicKey(NFT), name: 'Drift NFT', symbol: 'DRIFT', uri: 'https://example.com/drift-nft.json',
    sellerFeeBasisPoints: 0, creators: null, primarySaleHappened: false, isMutable: true, editionNonce: null, tokenStandard: 0, collection: null,
    uses: null, collectionDetails: null, programmableConfig: null,
  } as never));
  const lamports = 1_000_000_000n;
  return [
    { address: NFT, lamports, owner: TOKEN_PROGRAM, data: new Uint8Array(mint) },
    { address: NFT_ACCOUNT, lamports, owner: TOKEN_PROGRAM, data: new Uint8Array(token) },
    { address: NFT_METADATA, lamports, owner: TOKEN_METADATA_PROGRAM, data: metadata },
  ];
}

function treeData(): Uint8Array {
  const zero = publicKey(bytesToBase58(new Uint8Array(32)));
  const changeLogs = Array.from({ length: 8 }, (_, i) => ({ root: publicKey(ROOTS[i] ?? bytesToBase58(new Uint8Array(32))), pathNodes: [zero, zero, zero], index: i }));
  return getMerkleTreeAccountDataSerializer().serialize({
    treeHeader: { __kind: 'V1', maxBufferSize: 8, maxDepth: 3, authority: publicKey(randomKey()), creationSlot: 0n, padding: [0, 0, 0, 0, 0, 0] },
    tree: { sequenceNumber: 5n, activeIndex: 5n, bufferSize: 6n, changeLogs, rightMostPath: { proof: [zero, zero, zero], leaf: zero, index: 6 } },
    canopy: [],
  } as never);
}

let net: Localnet;
let demo: DemoWorkload;
let t: TestDb;
let ingester: Ingester;
let client: RpcClient;
let detector: DriftDetector;

async function ingestThroughTip(): Promise<void> {
  const tip = net.chain.slot;
  const poller = createRpcPoller({ url: net.url, commitment: 'confirmed', pollIntervalMs: 20, fetchAccounts: true, logger });
  const ctl = new AbortController();
  const run = ingester.run(poller, { startSlot: 0, signal: ctl.signal });
  while (((await getCheckpoint(t.db)) ?? -1) < tip) await sleep(20);
  ctl.abort();
  await run;
  await poller.close();
  await ingester.settle();
}

beforeAll(async () => {
  net = await createLocalnet({
    slotMs: 0, light: true,
    accounts: [
      { address: CORE, lamports: 1_000_000_000n, owner: MPL_CORE_PROGRAM, data: coreAssetData() },
      { address: TREE, lamports: 1_000_000_000n, owner: SPL_ACCOUNT_COMPRESSION_PROGRAM_ID, data: treeData() },
      ...nftAccounts(),
    ],
  });
  demo = await startDemoWorkload(net.chain, { intervalMs: 5, wallets: 3, failureRate: 0, light: true });
  const light = demo.light!;
  const end = Date.now() + 180_000;
  while ((demo.stats.sent < 30 || demo.assets.nfts.length < 2 || light.stats.v1Outputs < 4) && Date.now() < end) {
    await sleep(5);
    net.chain.produceSlot();
  }
  await demo.stop();
  net.chain.produceSlot();
  t = await createTestDb();
  ingester = createIngester(t.db, logger, { fetchAccounts: (keys) => fetchAccounts(net.url, keys, { commitment: 'confirmed' }) });
  await ingestThroughTip();
  // The genesis accounts no transaction touched: the Core asset and the NFT read as a snapshot would give them, the
  // tree's root as its last change log would have written it. Then a few slots, so the cluster's state is read after them.
  await ingester.ingestAccounts(await fetchAccounts(net.url, [CORE, NFT, NFT_ACCOUNT, NFT_METADATA], { commitment: 'confirmed' }));
  await ingester.settle();
  await t.db.query('INSERT INTO cnft_nodes (tree, node_index, level, hash, seq) VALUES ($1, 1, 3, $2, 5)', [TREE, ROOTS[5]]);
  for (let i = 0; i < 3; i++) net.chain.produceSlot();
  await ingestThroughTip();
  client = createRpcClient({ url: net.url, maxRetries: 2 });
  detector = createDriftDetector({ db: t.db, client, ingester, commitment: 'confirmed', sample: 10_000, treeSample: 100, startAt: () => '1', logger });
}, 300_000);

afterAll(async () => {
  await client?.close();
  await t?.drop();
  await net?.close();
});

const metric = async (name: string, kind: string) =>
  (await registry.getSingleMetric(name)!.get()).values.find((v) => v.labels.kind === kind)?.value ?? 0;
const KINDS = ['sol_balance', 'token_account', 'asset_owner', 'core_asset_owner', 'cnft_tree_root', 'zk_tree_root', 'zk_account_hash', 'zk_queue_next_index'];
const counts = async (name: string) => Object.fromEntries(await Promise.all(KINDS.map(async (k) => [k, await metric(name, k)] as const)));

describe('drift detector: asset owners, tree roots, closed token accounts', () => {
  it('reads the Bubblegum tree account as the Metaplex serializer wrote it', () => {
    const roots = parseMerkleTreeRoots(treeData())!;
    expect(roots.sequenceNumber).toBe(5);
    expect(roots.root).toBe(ROOTS[5]);
    expect(roots.rootAt(3)).toBe(ROOTS[3]);
    expect(roots.rootAt(0)).toBe(ROOTS[0]);
    expect(roots.rootAt(6)).toBeNull();
  });

  it('an uncorrupted index agrees with the cluster on every kind', async () => {
    // Every kind's counters are in /metrics from the detector's start.
    const text = await registry.metrics();
    for (const k of KINDS) for (const name of ['solgate_drift_checked_total', 'solgate_drift_mismatches_total']) expect(text).toContain(`${name}{kind="${k}"}`);
    const before = await counts('solgate_drift_checked_total');
    const r = await detector.runOnce();
    expect(r.mismatches).toEqual([]);
    const after = await counts('solgate_drift_checked_total');
    for (const k of KINDS) expect(after[k] - before[k], k).toBeGreaterThan(0);
  }, 120_000);

  it('finds each corrupted kind, counts it, repairs accounts from the cluster, queues the tree, reports the ZK root', async () => {
    const nft = { id: NFT, owner: NFT_OWNER };
    expect((await t.db.query('SELECT owner FROM das_assets WHERE id = $1', [NFT])).rows).toEqual([{ owner: NFT_OWNER }]);
    const { rows: [zk] } = await t.db.query<{ tree: Buffer; hash: Buffer }>(
      'SELECT n.tree, n.hash FROM zk_state_nodes n JOIN zk_trees t ON t.tree = n.tree WHERE t.tree_type = 1 AND n.node_idx = 1 LIMIT 1',
    );
    const zkTree = bytesToBase58(new Uint8Array(zk.tree));
    const ghost = randomKey();
    const stranger = randomKey();
    await t.db.query('UPDATE das_assets SET owner = $2 WHERE id = $1', [nft.id, stranger]);
    await t.db.query('UPDATE asset_accounts SET owner = $2 WHERE address = $1', [CORE, stranger]);
    await t.db.query('UPDATE das_assets SET owner = $2 WHERE id = $1', [CORE, stranger]);
    // An open token account the cluster does not have (its close was never indexed).
    await t.db.query(
      `INSERT INTO token_accounts (address, mint, owner, program, closed, owner_pos, amount, amount_pos)
       VALUES ($1, $2, $3, 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', false, 1999999, 5, 1999999)`,
      [ghost, demo.mints.splToken, demo.wallets[0]],
    );
    await t.db.query('UPDATE cnft_nodes SET hash = $2 WHERE tree = $1 AND node_index = 1', [TREE, ROOTS[2]]);
    await t.db.query('UPDATE zk_state_nodes SET hash = $2 WHERE tree = $1 AND node_idx = 1', [zk.tree, Buffer.alloc(32, 7)]);
    // The tree's history backfill finished earlier: a repair queues it again all the same.
    await t.db.query(`INSERT INTO backfill_addresses (address, status, cursor, finished_at) VALUES ($1, 'done', 'oldest', now())`, [TREE]);
    const before = await counts('solgate_drift_mismatches_total');

    const r = await detector.runOnce();
    const found = r.mismatches.map((m) => [m.kind, m.address, m.action]).sort();
    expect(found).toEqual([
      ['asset_owner', nft.id, 'rewritten'],
      ['cnft_tree_root', TREE, 'queued'],
      ['core_asset_owner', CORE, 'rewritten'],
      ['token_account', ghost, 'rewritten'],
      ['zk_tree_root', zkTree, 'reported'],
    ].sort());
    expect(r.mismatches.find((m) => m.kind === 'asset_owner')!.cluster.owner).toBe(nft.owner);
    expect(r.mismatches.find((m) => m.kind === 'core_asset_owner')!.cluster.owner).toBe(CORE_OWNER);
    expect(r.mismatches.find((m) => m.kind === 'token_account')!.cluster.closed).toBe(true);
    expect(r.mismatches.find((m) => m.kind === 'cnft_tree_root')!.cluster).toMatchObject({ root: ROOTS[5], seq: 5 });
    expect(r.repaired).toBe(3);
    expect(r.queued).toBe(1);
    const after = await counts('solgate_drift_mismatches_total');
    for (const k of ['asset_owner', 'core_asset_owner', 'token_account', 'cnft_tree_root', 'zk_tree_root']) expect(after[k] - before[k], k).toBe(1);
    const text = await registry.metrics();
    expect(text).toMatch(/solgate_drift_mismatches_total\{kind="zk_tree_root"\} [1-9]/);
    expect(text).toMatch(/solgate_drift_mismatches_total\{kind="core_asset_owner"\} [1-9]/);

    // Repaired from the cluster (the DAS rows derived again).
    const one = async (sql: string, p: unknown[]) => (await t.db.query<Record<string, unknown>>(sql, p)).rows[0];
    expect((await one('SELECT owner FROM das_assets WHERE id = $1', [nft.id])).owner).toBe(nft.owner);
    expect((await one('SELECT owner FROM asset_accounts WHERE address = $1', [CORE])).owner).toBe(CORE_OWNER);
    expect((await one('SELECT owner FROM das_assets WHERE id = $1', [CORE])).owner).toBe(CORE_OWNER);
    expect(await one('SELECT closed, amount::text AS amount FROM token_accounts WHERE address = $1', [ghost])).toEqual({ closed: true, amount: '0' });
    // Queued, not rewritten; reported, left as it is.
    // Queued again as a repair run (test/coverage/backfill-repair.test.ts): from the newest signature, and writing
    // what the index lacks after its origin too.
    expect(await one('SELECT status, repair, cursor FROM backfill_addresses WHERE address = $1', [TREE])).toEqual({ status: 'pending', repair: true, cursor: null });
    expect((await one('SELECT hash FROM cnft_nodes WHERE tree = $1 AND node_index = 1', [TREE])).hash).toBe(ROOTS[2]);
    expect(Buffer.from((await one('SELECT hash FROM zk_state_nodes WHERE tree = $1 AND node_idx = 1', [zk.tree])).hash as Buffer)).toEqual(Buffer.alloc(32, 7));

    // An index behind the tree (an older root, at its own seq) is a mismatch too; one ahead of the cluster is skipped.
    // With the ZK root restored, a compressed account whose leaf node was corrupted is found (and left as it is).
    await t.db.query('UPDATE cnft_nodes SET hash = $2, seq = 3 WHERE tree = $1 AND node_index = 1', [TREE, ROOTS[3]]);
    await t.db.query('UPDATE zk_state_nodes SET hash = $2 WHERE tree = $1 AND node_idx = 1', [zk.tree, zk.hash]);
    const { rows: [leaf] } = await t.db.query<{ hash: Buffer; tree: Buffer; node: string }>(
      `SELECT a.hash, a.tree, ((1::bigint << t.height) + a.leaf_index)::text AS node FROM zk_accounts a JOIN zk_trees t ON t.tree = a.tree
        WHERE t.tree_type = 1 AND NOT a.spent AND a.leaf_index IS NOT NULL ORDER BY a.hash LIMIT 1`,
    );
    const leafHashBefore = await metric('solgate_drift_mismatches_total', 'zk_account_hash');
    await t.db.query('UPDATE zk_state_nodes SET hash = $3 WHERE tree = $1 AND node_idx = $2', [leaf.tree, leaf.node, Buffer.alloc(32, 9)]);
    const behind = await detector.runOnce();
    const leafHash = bytesToBase58(new Uint8Array(leaf.hash));
    expect(behind.mismatches.filter((m) => m.kind !== 'zk_account_hash').map((m) => [m.kind, m.address])).toEqual([['cnft_tree_root', TREE]]);
    expect(behind.mismatches.find((m) => m.kind === 'cnft_tree_root')!.cluster).toMatchObject({ seq: 5, rootAtIndexedSeq: ROOTS[3] });
    // The corrupted leaf's account; its sibling leaf's account (if unspent) no longer proves either: the leaf is its proof's first node.
    const zkFound = behind.mismatches.filter((m) => m.kind === 'zk_account_hash');
    const mine = zkFound.find((m) => m.address === leafHash)!;
    expect(mine).toMatchObject({ action: 'reported', indexed: { leaf: bytesToBase58(new Uint8Array(32).fill(9)), proofVerifies: false } });
    const leafIndex = mine.indexed.leafIndex as number;
    for (const m of zkFound) expect([leafIndex, leafIndex ^ 1]).toContain(m.indexed.leafIndex);
    expect(await metric('solgate_drift_mismatches_total', 'zk_account_hash')).toBe(leafHashBefore + zkFound.length);
    await t.db.query('UPDATE zk_state_nodes SET hash = $3 WHERE tree = $1 AND node_idx = $2', [leaf.tree, leaf.node, leaf.hash]);
    await t.db.query('UPDATE cnft_nodes SET hash = $2, seq = 9 WHERE tree = $1 AND node_index = 1', [TREE, randomKey()]);
    const ahead = await detector.runOnce();
    expect(ahead.mismatches).toEqual([]);
    expect(ahead.skipped).toBeGreaterThanOrEqual(1);

    await t.db.query('UPDATE cnft_nodes SET hash = $2, seq = 5 WHERE tree = $1 AND node_index = 1', [TREE, ROOTS[5]]);
    const clean = await detector.runOnce();
    expect(clean.mismatches).toEqual([]);
  }, 180_000);

  it('an NFT whose indexed holder the cluster does not have: the mint\'s largest account names the owner; both are rewritten', async () => {
    const ghost = randomKey();
    const stranger = randomKey();
    // The index holds a larger holder than the real one, and serves its owner.
    await t.db.query(
      `INSERT INTO token_accounts (address, mint, owner, program, closed, owner_pos, amount, amount_pos)
       VALUES ($1, $2, $3, 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', false, 1999999, 5, 1999999)`,
      [ghost, NFT, stranger],
    );
    await t.db.query('UPDATE das_assets SET owner = $2 WHERE id = $1', [NFT, stranger]);
    const r = await detector.runOnce();
    expect(r.mismatches.map((m) => [m.kind, m.address]).sort()).toEqual([['asset_owner', NFT], ['token_account', ghost]].sort());
    expect(r.mismatches.find((m) => m.kind === 'asset_owner')).toMatchObject({
      indexed: { owner: stranger, tokenAccount: ghost }, cluster: { owner: NFT_OWNER, tokenAccount: NFT_ACCOUNT }, action: 'rewritten',
    });
    expect((await t.db.query('SELECT owner FROM das_assets WHERE id = $1', [NFT])).rows).toEqual([{ owner: NFT_OWNER }]);
    expect((await t.db.query('SELECT closed FROM token_accounts WHERE address = $1', [ghost])).rows).toEqual([{ closed: true }]);
    expect((await detector.runOnce()).mismatches).toEqual([]);
  }, 120_000);
});
