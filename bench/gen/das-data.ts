/**
 * A synthetic DAS dataset written as the SOURCE rows the gateway reads (what ingestion would have written), so
 * the list index is then derived the real way (das_dirty + the refresher):
 *
 * - Token Metadata NFTs (most assets): `asset_accounts` tm.metadata (decoded `data` shaped exactly as the
 *   decoder writes it) + tm.masterEdition at the real edition PDA, `tm_edition_mints`, a 0-decimals `mints` row
 *   whose authorities are the edition, and the holder's `token_accounts` row; a share are programmable NFTs (frozen
 *   token account, rule set);
 * - MPL Core assets: `asset_accounts` core.asset (owner, collection columns) and core.collection rows;
 * - compressed NFTs (Bubblegum V1): `cnft_assets` (ids are the real asset PDAs of (tree, leaf index), leaf hashes
 *   are the real V1 leaf-schema hashes), every Merkle node of their trees in `cnft_nodes` (built with
 *   src/proofs, so getAssetProof's proofs verify) and one mint signature each in `cnft_signatures`.
 *
 * Distribution: collections of `collectionSize` (each with its collection asset: a TM collection NFT with
 * collection details, or a Core collection with a royalties plugin; compressed collections are TM collection NFTs,
 * one Merkle tree each); the rest are 1/1s in small uncollected series. Owners: a few whales holding 10k–50k
 * assets (at 1M; scaled with the size), everyone else 1–20 (Zipf-like, mean ≈ 4.6), spread over every kind and
 * collection. Rows are inserted in batches through `unnest`, the JSON built by PostgreSQL (jsonb_build_object).
 * Deterministic for a seed. Not modelled: token records, editions (prints), fungibles, Token-2022, inscriptions,
 * burnt assets, delegates; data/creator hashes of compressed NFTs are random (nothing recomputes them).
 */
import { keccak_256 } from '@noble/hashes/sha3';
import { base58ToBytes, bytesToBase58 } from '../../src/core/encoding.js';
import type { Db, Queryable } from '../../src/store/db.js';
import { arrayLiteral } from '../../src/store/bulk.js';
import { emptyNode, hashPair } from '../../src/proofs/hash.js';
import { Rng } from './rng.js';
import { cnftAssetIdPda, editionPda } from './pda.js';

export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
/** Bump when the generated data changes, so a kept database of an older layout is regenerated. */
export const DATA_VERSION = 1;

export interface DasDataConfig {
  assets: number;
  seed: number;
  collectionSize: number;
  /** Shares of Token Metadata and Core assets; the rest are compressed. */
  tmShare: number;
  coreShare: number;
  /** Share of assets in collections (the rest are uncollected 1/1s). */
  collectedShare: number;
  /** Share of Token Metadata NFTs that are programmable. */
  pnftShare: number;
  /** Whale holdings at 1M assets (scaled linearly with `assets`, at least 1,000 each). */
  whalesAt1M: number[];
  treeDepth: number;
}

export const DEFAULT_DATA_CONFIG: Omit<DasDataConfig, 'assets' | 'seed'> = {
  collectionSize: 10_000,
  tmShare: 0.8,
  coreShare: 0.1,
  collectedShare: 0.9,
  pnftShare: 0.3,
  whalesAt1M: [50_000, 35_000, 25_000, 15_000, 12_000, 10_000],
  treeDepth: 20,
};

type GroupKind = 'tm' | 'core' | 'cnft';

/** A collection (or an uncollected series: `address` null) and what its members share. */
interface Group {
  idx: number;
  kind: GroupKind;
  size: number;
  /** Collection asset address (TM collection mint or Core collection); null for uncollected series. */
  address: string | null;
  name: string;
  symbol: string;
  uriBase: string;
  updateAuthority: string;
  creators: { address: string; verified: boolean; share: number }[];
  bps: number;
  ruleSet: string;
  /** Compressed groups: their Merkle tree and its authority (tree config). */
  tree: string | null;
  treeAuthority: string | null;
  slot: number;
}

/** What the generator reports. */
export interface DasDataStats {
  assets: { tokenMetadata: number; core: number; compressed: number; collectionAssets: number; total: number };
  collections: number;
  uncollectedSeries: number;
  trees: number;
  owners: { whales: { owner: string; assets: number }[]; small: number };
  cnftNodes: number;
  generateMs: number;
}

const BATCH = 5_000;
const FIRST_SLOT = 250_000_000;
const LAST_SLOT = 300_000_000;

/** Fills `db` (migrated, empty) with the dataset; returns what it wrote. */
export async function generateDasData(db: Db, cfg: DasDataConfig, log: (s: string) => void): Promise<DasDataStats> {
  const t0 = performance.now();
  const rng = new Rng(cfg.seed);
  const key = () => bytesToBase58(rng.bytes(32));
  const randomSlot = () => rng.range(FIRST_SLOT, LAST_SLOT);

  // Groups: collections of collectionSize per kind, then uncollected series of ≤ 100 (one tree per compressed group).
  const perKind: Record<GroupKind, number> = {
    tm: Math.round(cfg.assets * cfg.tmShare),
    core: Math.round(cfg.assets * cfg.coreShare),
    cnft: 0,
  };
  perKind.cnft = cfg.assets - perKind.tm - perKind.core;
  const groups: Group[] = [];
  const newGroup = (kind: GroupKind, size: number, collected: boolean): Group => {
    const idx = groups.length;
    const ua = key();
    const g: Group = {
      idx,
      kind,
      size,
      address: collected ? key() : null,
      name: collected ? `Collection ${idx}` : `Series ${idx}`,
      symbol: collected ? `C${idx}`.slice(0, 10) : '',
      uriBase: `https://nftstorage.link/ipfs/bafybei${bytesToBase58(rng.bytes(32)).toLowerCase().slice(0, 40)}/`,
      updateAuthority: ua,
      creators: collected ? [{ address: key(), verified: true, share: 0 }, { address: ua, verified: false, share: 100 }] : [{ address: ua, verified: true, share: 100 }],
      bps: rng.pick([0, 250, 420, 500, 690, 750, 1000]),
      ruleSet: 'eBJLFYPxJmMGKuFwpDWkzxZeUrad92kZRC5BJLpzyT9',
      tree: kind === 'cnft' ? key() : null,
      treeAuthority: kind === 'cnft' ? key() : null,
      slot: randomSlot(),
    };
    groups.push(g);
    return g;
  };
  for (const kind of ['tm', 'core', 'cnft'] as GroupKind[]) {
    let left = perKind[kind];
    const nCollections = left ? Math.max(1, Math.round((left * cfg.collectedShare) / cfg.collectionSize)) : 0;
    for (let i = 0; i < nCollections && left > 1; i++) {
      const size = Math.min(cfg.collectionSize, left - 1); // -1: the collection asset itself
      newGroup(kind, size, true);
      left -= size + 1;
    }
    while (left > 0) {
      const size = Math.min(left, kind === 'cnft' ? cfg.collectionSize : 100);
      newGroup(kind, size, false);
      left -= size;
    }
  }
  const members = groups.reduce((s, g) => s + g.size, 0);

  // Owners: whales, then small owners (1–20, P(k) ∝ k^-1.2) until every member has one; shuffled over members.
  const scale = cfg.assets / 1_000_000;
  const whaleSizes = cfg.whalesAt1M.map((n) => Math.max(1_000, Math.round(n * scale)));
  if (whaleSizes.reduce((s, n) => s + n, 0) > members / 2) throw new Error(`--assets ${cfg.assets} is too small for the whales (${whaleSizes.join(', ')})`);
  const owners: string[] = [];
  const ownerOf = new Int32Array(members);
  let filled = 0;
  const whales: { owner: string; assets: number }[] = [];
  for (const n of whaleSizes) {
    const o = key();
    whales.push({ owner: o, assets: n });
    ownerOf.fill(owners.push(o) - 1, filled, filled + n);
    filled += n;
  }
  const sizeCdf: number[] = [];
  let acc = 0;
  for (let k = 1; k <= 20; k++) sizeCdf.push((acc += k ** -1.2));
  const ownedCounts: number[] = [];
  while (filled < members) {
    const u = rng.next() * acc;
    const n = Math.min(sizeCdf.findIndex((c) => c >= u) + 1, members - filled);
    ownerOf.fill(owners.push(key()) - 1, filled, filled + n);
    ownedCounts.push(n);
    filled += n;
  }
  for (let i = members - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    const t = ownerOf[i];
    ownerOf[i] = ownerOf[j];
    ownerOf[j] = t;
  }
  log(`das: plan: ${groups.length} groups (${groups.filter((g) => g.address).length} collections), ${members} members, ${owners.length} owners (${whales.length} whales: ${whaleSizes.join(', ')})`);

  await db.exec(`
    CREATE TABLE bench_das_groups (idx INT PRIMARY KEY, kind TEXT NOT NULL, size INT NOT NULL, address TEXT, name TEXT NOT NULL,
      symbol TEXT NOT NULL, uri_base TEXT NOT NULL, update_authority TEXT NOT NULL, creators JSONB NOT NULL, bps INT NOT NULL,
      rule_set TEXT NOT NULL, tree TEXT, tree_authority TEXT, slot BIGINT NOT NULL);
    CREATE TABLE bench_das_owners (owner TEXT PRIMARY KEY, assets INT NOT NULL, whale BOOLEAN NOT NULL)`);
  await db.query(
    `INSERT INTO bench_das_groups SELECT * FROM unnest($1::int[], $2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
       $9::jsonb[], $10::int[], $11::text[], $12::text[], $13::text[], $14::bigint[])`,
    [
      groups.map((g) => g.idx), groups.map((g) => g.kind), groups.map((g) => g.size), groups.map((g) => g.address), groups.map((g) => g.name),
      groups.map((g) => g.symbol), groups.map((g) => g.uriBase), groups.map((g) => g.updateAuthority), groups.map((g) => JSON.stringify(g.creators)),
      groups.map((g) => g.bps), groups.map((g) => g.ruleSet), groups.map((g) => g.tree), groups.map((g) => g.treeAuthority), groups.map((g) => g.slot),
    ],
  );
  const ownerAssets = new Int32Array(owners.length);
  for (const o of ownerOf) ownerAssets[o]++;
  for (let i = 0; i < owners.length; i += 50_000) {
    const ids = owners.slice(i, i + 50_000);
    await db.query('INSERT INTO bench_das_owners SELECT o, n, w FROM unnest($1::text[], $2::int[], $3::boolean[]) AS u(o, n, w)', [
      lit(ids), lit(ids.map((_, k) => ownerAssets[i + k])), lit(ids.map((_, k) => i + k < whales.length)),
    ]);
  }

  // Assets, group by group, in batches.
  let member = 0;
  let written = 0;
  let nodes = 0;
  let lastLog = performance.now();
  let tmBatch = new TmBatch();
  let coreBatch = new CoreBatch();
  // One batch is written while the next is generated (at most one write in flight, in order).
  let inFlight: Promise<void> = Promise.resolve();
  const write = async (f: (db: Db) => Promise<void>) => {
    await inFlight;
    inFlight = f(db);
  };
  const flush = async (force = false) => {
    if (force || tmBatch.mint.length >= BATCH) {
      const b = tmBatch;
      tmBatch = new TmBatch();
      await write((d) => b.flush(d));
    }
    if (force || coreBatch.address.length >= BATCH) {
      const b = coreBatch;
      coreBatch = new CoreBatch();
      await write((d) => b.flush(d));
    }
    if (force) await inFlight;
    if (performance.now() - lastLog > 15_000) {
      lastLog = performance.now();
      log(`das: generated ${written.toLocaleString('en-US')} / ${cfg.assets.toLocaleString('en-US')} assets (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
    }
  };
  for (const g of groups) {
    // The collection asset: a TM collection NFT (TM and compressed collections) or a Core collection.
    if (g.address) {
      if (g.kind === 'core') coreBatch.add(g.address, null, g, 0, g.slot, true);
      else tmBatch.add(g.address, key(), key(), g.updateAuthority, g, 0, g.slot, false, true);
      written++;
    }
    if (g.kind === 'cnft') {
      await inFlight;
      const n = await writeTree(db, g, cfg.treeDepth, g.size, (i) => owners[ownerOf[member + i]], rng);
      nodes += n;
      member += g.size;
      written += g.size;
      await flush();
      continue;
    }
    for (let i = 0; i < g.size; i++, member++, written++) {
      const owner = owners[ownerOf[member]];
      const slot = randomSlot();
      if (g.kind === 'core') coreBatch.add(key(), owner, g, i + 1, slot, false);
      else tmBatch.add(key(), key(), key(), owner, g, i + 1, slot, rng.chance(cfg.pnftShare), false);
      await flush();
    }
  }
  await flush(true);
  await db.query(`INSERT INTO ingest_checkpoint (id, slot) VALUES ('chain', $1) ON CONFLICT (id) DO UPDATE SET slot = EXCLUDED.slot`, [LAST_SLOT]);

  const collections = groups.filter((g) => g.address).length;
  return {
    assets: {
      tokenMetadata: groups.filter((g) => g.kind === 'tm').reduce((s, g) => s + g.size, 0),
      core: groups.filter((g) => g.kind === 'core').reduce((s, g) => s + g.size, 0),
      compressed: groups.filter((g) => g.kind === 'cnft').reduce((s, g) => s + g.size, 0),
      collectionAssets: collections,
      total: written,
    },
    collections,
    uncollectedSeries: groups.length - collections,
    trees: groups.filter((g) => g.kind === 'cnft').length,
    owners: { whales, small: ownedCounts.length },
    cnftNodes: nodes,
    generateMs: Math.round(performance.now() - t0),
  };
}

/** A column as one array literal (fast path), or the raw values. */
function lit(values: readonly unknown[]): unknown {
  return arrayLiteral(values) ?? values;
}

/** Token Metadata NFTs: metadata + master edition accounts, edition→mint links, mints, holder token accounts. */
class TmBatch {
  mint: string[] = [];
  meta: string[] = [];
  edition: string[] = [];
  ta: string[] = [];
  owner: string[] = [];
  grp: number[] = [];
  num: number[] = [];
  slot: number[] = [];
  pnft: boolean[] = [];
  parent: boolean[] = [];

  add(mint: string, meta: string, ta: string, owner: string, g: Group, num: number, slot: number, pnft: boolean, parent: boolean): void {
    this.mint.push(mint);
    this.meta.push(meta);
    this.edition.push(editionPda(mint));
    this.ta.push(ta);
    this.owner.push(owner);
    this.grp.push(g.idx);
    this.num.push(num);
    this.slot.push(slot);
    this.pnft.push(pnft);
    this.parent.push(parent);
  }

  async flush(db: Db): Promise<void> {
    if (!this.mint.length) return;
    const p = [this.mint, this.meta, this.edition, this.ta, this.owner, this.grp, this.num, this.slot, this.pnft, this.parent].map(lit);
    const u = `unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::int[], $8::bigint[], $9::boolean[], $10::boolean[])
                 AS u(mint, meta, edition, ta, owner, grp, num, slot, pnft, parent)`;
    await db.tx(async (q: Queryable) => {
      await q.query(
        `INSERT INTO asset_accounts (address, kind, asset_id, owner, collection, data, slot, write_version)
         SELECT u.meta, 'tm.metadata', u.mint, NULL, CASE WHEN u.parent THEN NULL ELSE g.address END,
                jsonb_build_object(
                  'uri', n.uri, 'kind', 'tm.metadata', 'mint', u.mint, 'name', n.name, 'uses', NULL, 'symbol', g.symbol,
                  'address', u.meta,
                  'rawName', encode(convert_to(n.name, 'UTF8') || decode(repeat('00', 32 - octet_length(convert_to(n.name, 'UTF8'))), 'hex'), 'base64'),
                  'creators', g.creators, 'isMutable', true,
                  'rawSymbol', encode(convert_to(g.symbol, 'UTF8') || decode(repeat('00', 10 - octet_length(convert_to(g.symbol, 'UTF8'))), 'hex'), 'base64'),
                  'collection', CASE WHEN u.parent OR g.address IS NULL THEN NULL ELSE jsonb_build_object('key', g.address, 'verified', true) END,
                  'editionNonce', 250 + u.num % 6,
                  'tokenStandard', CASE WHEN u.pnft THEN 'ProgrammableNonFungible' ELSE 'NonFungible' END,
                  'updateAuthority', g.update_authority,
                  'collectionDetails', CASE WHEN u.parent THEN jsonb_build_object('version', 'V1', 'size', g.size) END,
                  'programmableConfig', CASE WHEN u.pnft THEN jsonb_build_object('version', 'V1', 'ruleSet', g.rule_set) END,
                  'primarySaleHappened', true, 'sellerFeeBasisPoints', g.bps),
                u.slot, 0
           FROM ${u} JOIN bench_das_groups g ON g.idx = u.grp
           CROSS JOIN LATERAL (SELECT CASE WHEN u.parent THEN g.name ELSE g.name || ' #' || u.num END AS name,
                                      g.uri_base || CASE WHEN u.parent THEN 'collection' ELSE u.num::text END || '.json' AS uri) n
         UNION ALL
         SELECT u.edition, 'tm.masterEdition', NULL, NULL, NULL,
                jsonb_build_object('kind', 'tm.masterEdition', 'supply', '0', 'address', u.edition, 'version', 2, 'maxSupply', '0'), u.slot, 0
           FROM ${u}`,
        p,
      );
      await q.query(`INSERT INTO tm_edition_mints (edition, mint) SELECT u.edition, u.mint FROM ${u}`, p);
      await q.query(
        `INSERT INTO mints (address, program, decimals, mint_authority, mint_authority_pos, freeze_authority, freeze_authority_pos,
                            supply_base, supply_pos, supply_ord, init_pos)
         SELECT u.mint, '${TOKEN_PROGRAM}', 0, u.edition, u.slot * 1000000 + 999999, u.edition, u.slot * 1000000 + 999999,
                1, u.slot * 1000000 + 999999, 2147483647, NULL
           FROM ${u}`,
        p,
      );
      await q.query(
        `INSERT INTO token_accounts (address, mint, owner, program, closed, owner_pos, amount, amount_pos, delegate, delegated_amount,
                                    delegate_pos, frozen, frozen_pos, close_authority, close_authority_pos)
         SELECT u.ta, u.mint, u.owner, '${TOKEN_PROGRAM}', false, u.slot * 1000000 + 999999, 1, u.slot * 1000000 + 999999, NULL, NULL,
                u.slot * 1000000 + 999999, u.pnft, u.slot * 1000000 + 999999, NULL, u.slot * 1000000 + 999999
           FROM ${u}`,
        p,
      );
    });
    for (const a of [this.mint, this.meta, this.edition, this.ta, this.owner, this.grp, this.num, this.slot, this.pnft, this.parent]) a.length = 0;
  }
}

/** MPL Core assets (members) and collections (`collection` true). */
class CoreBatch {
  address: string[] = [];
  owner: (string | null)[] = [];
  grp: number[] = [];
  num: number[] = [];
  slot: number[] = [];
  collection: boolean[] = [];

  add(address: string, owner: string | null, g: Group, num: number, slot: number, collection: boolean): void {
    this.address.push(address);
    this.owner.push(owner);
    this.grp.push(g.idx);
    this.num.push(num);
    this.slot.push(slot);
    this.collection.push(collection);
  }

  async flush(db: Db): Promise<void> {
    if (!this.address.length) return;
    const p = [this.address, this.owner, this.grp, this.num, this.slot, this.collection].map(lit);
    // Collections carry a royalties plugin (and the decoder's derived `royalty`); members inherit the collection
    // as update authority; uncollected assets name their own authority.
    await db.query(
      `INSERT INTO asset_accounts (address, kind, asset_id, owner, collection, data, slot, write_version)
       SELECT u.address, CASE WHEN u.coll THEN 'core.collection' ELSE 'core.asset' END, u.address, u.owner,
              CASE WHEN u.coll THEN NULL ELSE g.address END,
              CASE WHEN u.coll THEN jsonb_build_object(
                  'uri', g.uri_base || 'collection.json', 'kind', 'core.collection', 'name', g.name, 'frozen', false, 'address', u.address,
                  'plugins', jsonb_build_object('royalties', jsonb_build_object(
                      'data', jsonb_build_object('creators', jsonb_build_array(jsonb_build_object('address', g.update_authority, 'percentage', 100)),
                                                 'rule_set', 'None', 'basis_points', g.bps),
                      'index', 0, 'offset', 124, 'authority', jsonb_build_object('type', 'UpdateAuthority', 'address', NULL))),
                  'royalty', jsonb_build_object('creators', jsonb_build_array(jsonb_build_object('address', g.update_authority, 'percentage', 100)),
                                                'basisPoints', g.bps),
                  'numMinted', g.size, 'currentSize', g.size, 'unknownPlugins', NULL, 'externalPlugins', '[]'::jsonb,
                  'updateAuthority', g.update_authority, 'transferDelegate', NULL, 'unknownExternalPlugins', NULL)
              ELSE jsonb_build_object(
                  'seq', NULL, 'uri', g.uri_base || u.num || '.json', 'kind', 'core.asset', 'name', g.name || ' #' || u.num, 'owner', u.owner,
                  'frozen', false, 'address', u.address, 'plugins', '{}'::jsonb, 'royalty', NULL, 'unknownPlugins', NULL,
                  'externalPlugins', '[]'::jsonb,
                  'updateAuthority', CASE WHEN g.address IS NULL THEN jsonb_build_object('type', 'Address', 'address', g.update_authority)
                                          ELSE jsonb_build_object('type', 'Collection', 'address', g.address) END,
                  'transferDelegate', NULL, 'unknownExternalPlugins', NULL)
              END,
              u.slot, 0
         FROM unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::bigint[], $6::boolean[]) AS u(address, owner, grp, num, slot, coll)
         JOIN bench_das_groups g ON g.idx = u.grp`,
      p,
    );
    for (const a of [this.address, this.owner, this.grp, this.num, this.slot, this.collection]) a.length = 0;
  }
}

const V1_LEAF_VERSION = Uint8Array.of(1);

/**
 * One compressed group: `size` leaves appended to a fresh tree (leaf i at seq i + 1), their assets and mint
 * signatures, and every node of the tree as the change logs leave it (node seq = the last append under it).
 */
async function writeTree(db: Db, g: Group, depth: number, size: number, ownerOf: (i: number) => string, rng: Rng): Promise<number> {
  const tree = g.tree!;
  const ids: string[] = [];
  const owners: string[] = [];
  const leafHashes: Uint8Array[] = [];
  const dataHashes: string[] = [];
  const creatorHashes: string[] = [];
  const slots: number[] = [];
  const sigs: string[] = [];
  const nonce = new Uint8Array(8);
  const view = new DataView(nonce.buffer);
  for (let i = 0; i < size; i++) {
    const id = cnftAssetIdPda(tree, i);
    const owner = ownerOf(i);
    const dataHash = rng.bytes(32);
    const creatorHash = rng.bytes(32);
    view.setBigUint64(0, BigInt(i), true);
    const ownerBytes = base58ToBytes(owner);
    const leaf = keccak_256.create().update(V1_LEAF_VERSION).update(base58ToBytes(id)).update(ownerBytes).update(ownerBytes).update(nonce).update(dataHash).update(creatorHash).digest();
    ids.push(id);
    owners.push(owner);
    leafHashes.push(leaf);
    dataHashes.push(bytesToBase58(dataHash));
    creatorHashes.push(bytesToBase58(creatorHash));
    slots.push(g.slot + Math.floor(i / 50)); // a drop: ~50 mints per slot
    sigs.push(bytesToBase58(rng.bytes(64)));
  }
  for (let i = 0; i < size; i += BATCH) {
    const s = (a: unknown[]) => lit(a.slice(i, i + BATCH));
    const idx = Array.from({ length: Math.min(BATCH, size - i) }, (_, k) => i + k);
    const p = [s(ids), lit(idx), s(leafHashes.map(bytesToBase58)), s(dataHashes), s(creatorHashes), s(owners), s(slots), s(sigs)];
    await db.tx(async (q) => {
      await q.query(
        `INSERT INTO cnft_assets (asset_id, tree, leaf_index, authority, leaf_schema, leaf_hash, data_hash, creator_hash, collection_hash,
                                  asset_data_hash, flags, leaf_seq, owner, delegate, owner_seq, metadata, metadata_version, metadata_seq, seq,
                                  burnt)
         SELECT u.id, g.tree, u.leaf, g.tree_authority, 1, u.leaf_hash, u.data_hash, u.creator_hash, NULL, NULL, NULL, u.leaf + 1, u.owner, NULL,
                u.leaf + 1,
                jsonb_build_object('uri', g.uri_base || (u.leaf + 1) || '.json', 'name', g.name || ' #' || (u.leaf + 1), 'uses', NULL,
                                   'symbol', g.symbol, 'creators', g.creators, 'isMutable', true,
                                   'collection', CASE WHEN g.address IS NULL THEN NULL ELSE jsonb_build_object('key', g.address, 'verified', true) END,
                                   'editionNonce', 0, 'tokenStandard', 'NonFungible', 'primarySaleHappened', false,
                                   'tokenProgramVersion', 'Original', 'sellerFeeBasisPoints', g.bps),
                1, u.leaf + 1, u.leaf + 1, false
           FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::text[])
                AS u(id, leaf, leaf_hash, data_hash, creator_hash, owner, slot, sig)
           JOIN bench_das_groups g ON g.idx = ${g.idx}`,
        p,
      );
      await q.query(
        `INSERT INTO cnft_signatures (asset_id, signature, ix_path, instruction, slot, seq)
         SELECT u.id, u.sig, '0', 'MintToCollectionV1', u.slot, u.leaf + 1
           FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[]) AS u(id, leaf, slot, sig)`,
        [p[0], p[1], p[6], p[7]],
      );
    });
  }

  // Every node: level 0 = the leaves; a missing right child is the empty subtree of its level.
  const rows: { idx: number; level: number; hash: string; seq: number; leaf: number | null }[] = [];
  let level: Uint8Array[] = leafHashes;
  for (let l = 0; l <= depth; l++) {
    const span = 2 ** l;
    for (let i = 0; i < level.length; i++) {
      rows.push({ idx: 2 ** (depth - l) + i, level: l, hash: bytesToBase58(level[i]), seq: Math.min((i + 1) * span, size), leaf: l === 0 ? i : null });
    }
    if (l === depth) break;
    const up: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) up.push(hashPair(level[i], level[i + 1] ?? emptyNode(l)));
    level = up;
  }
  for (let i = 0; i < rows.length; i += BATCH * 4) {
    const b = rows.slice(i, i + BATCH * 4);
    await db.query(
      `INSERT INTO cnft_nodes (tree, node_index, level, hash, seq, leaf_index)
       SELECT $1, u.idx, u.level, u.hash, u.seq, u.leaf FROM unnest($2::bigint[], $3::int[], $4::text[], $5::bigint[], $6::bigint[]) AS u(idx, level, hash, seq, leaf)`,
      [tree, lit(b.map((r) => r.idx)), lit(b.map((r) => r.level)), lit(b.map((r) => r.hash)), lit(b.map((r) => r.seq)), lit(b.map((r) => r.leaf))],
    );
  }
  return rows.length;
}
