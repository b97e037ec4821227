/**
 * Load, memory and proof invariants (issue #9) against a real `solgate serve` child process on loopback.
 *
 * Data set: recorded fixtures replayed into a fresh database before the server starts — every compressed-NFT
 * (Bubblegum) case of test/fixtures/das (cNFT mints, transfers, burns… with their concurrent-Merkle-tree change
 * logs) and Photon's `nullfiier_and_address_queue_transactions` ZK Compression transactions (compressed accounts in
 * a V1 state tree, an address tree). PostgreSQL when DATABASE_URL is set, else PGlite in a temporary data dir.
 *
 * Keys: one `professional` key whose per-second limits are raised by a plans file (SOLGATE_PLANS_FILE) so the load
 * itself is never limited, and one `free` key (2 DAS/ZK requests per second) whose 429s are intended.
 *
 * Load (autocannon, mixed read workload: wallet balances/history, DAS getAsset/getAssetProof/getAssetsByOwner, ZK
 * getCompressedAccountsByOwner / proofs, /health): 1,000 connections, every one cycling through the
 * professional key's requests with a free-key request after every ninth, for 20 s (short, CI) or 60 s (long). Asserted: no socket errors or timeouts, every answer of the
 * professional run 2xx with no JSON-RPC error, the free run only 2xx or 429. Reported: req/s, p50/p99, status
 * histogram. Long variant: a 30-minute soak at 100 connections with the server's RSS (`/metrics`) sampled every 5 s;
 * the least-squares trend over the second half must stay under SOAK_MAX_MB_PER_MIN (short variant: reported only).
 *
 * Proofs: during the load (a loop beside autocannon) and after it, every proof-returning method is called for the
 * whole data set — getAssetProof, getAssetProofBatch, getCompressedAccountProof(V2),
 * getMultipleCompressedAccountProofs(V2), getMultipleNewAddressProofs(V2) — and each proof is verified here,
 * independently of src/proofs: Keccak-256 (@noble/hashes) for Bubblegum trees, Poseidon from Light's own
 * @lightprotocol/hasher.rs for Light trees. The count is reported; one failure fails the suite. The server's
 * `solgate_proof_verification_failures_total` must stay 0.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import autocannon from 'autocannon';
import bs58 from 'bs58';
import { keccak_256 } from '@noble/hashes/sha3';
import { WasmFactory, type LightWasm } from '@lightprotocol/hasher.rs';
import { openDb, type Db } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { createApiKey } from '../../src/store/keys.js';
import { replayInto } from '../../src/ingest/replay.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { DAS_DIR, loadCases } from '../das/harness.js';
import { inputFile, loadPhotonCases } from '../zk/harness.js';
import { replayInputs } from '../zk/replay.js';
import { LONG, record } from './report.js';
import { freePort } from '../helpers/net.js';

const ROOT = join(import.meta.dirname, '..', '..');
const CONNECTIONS = 1000;
const LOAD_SECONDS = LONG ? 60 : 20;
const SOAK_MINUTES = 30;
const SOAK_CONNECTIONS = 100;
const RSS_SAMPLE_MS = 5000;
/** prom-client's default process metrics under the `solgate_process_` prefix. */
const RSS_METRIC = 'solgate_process_process_resident_memory_bytes';
/** Long variant: the RSS trend over the soak's second half must stay under this (MB per minute). */
const SOAK_MAX_MB_PER_MIN = 1;
/** autocannon's per-request timeout: 1,000 connections on a busy 2-core box queue for seconds; a timeout still fails. */
const REQUEST_TIMEOUT_S = 60;

/**
 * The DAS fixture cases whose asset is a compressed NFT and whose recording holds its tree's whole history (change
 * logs from seq 0 on, one tree per case). Left out: mint_no_json_uri (only seq 4 recorded) and mint_transfer_noop
 * (seqs 6, 39, 43): the leaves written before are unknown, so no valid proof can be built and the server answers
 * an internal error instead (never a wrong proof — test/das/cnft.test.ts).
 */
const CNFT_CASES = [
  'add_asset_to_collection_using_set_collection_v2', 'change_collection_using_set_collection_v2', 'cnft_scenario_mint_update_metadata',
  'delegate_v2', 'freeze_v2', 'mint_delegate_transfer', 'mint_redeem_cancel_redeem', 'mint_transfer_burn', 'mint_transfer_transfer', 'mint_v2_not_to_collection', 'mint_v2_to_collection_burn_v2',
  'mint_v2_to_collection_transfer_v2', 'mint_v2_transfer_v2', 'mint_verify_creator', 'set_non_transferable_v2', 'thaw_and_revoke_v2',
];
const ZK_CASE = 'nullfiier_and_address_queue_transactions';
const ZK_OWNER = 'Ecs89dz8NsNoSxyUtp54G2HPbmvJr8qZnxnWUqiLT92r';
/** New addresses (not in the address trees) whose non-inclusion proofs are asked for. */
const NEW_ADDRESSES = [
  '1111111ogCyDbaRMvkdsHB3qfdyFYaG1WtRUAfdh',
  // 32-byte values below the BN254 field modulus (leading zero byte), spread over the range.
  ...['a', 'b', 'c'].map((l) => bs58.encode(new Uint8Array([0, ...createHash('sha256').update(`solgate-load:${l}`).digest().subarray(1)]))),
];
const ADDRESS_TREES = [{ tree: 'amt1Ayt45jfbdw5YSo7iz6WZxUmnZsQTYXy82hVwyC2', v1: true }];

let t: TestDb | null = null;
let dataDir: string | null = null;
let server: ChildProcess | null = null;
let base = '';
let proKey = '';
let freeKey = '';
const output: string[] = [];
let light: LightWasm;

/** What the data set holds, read back from the server before the load. */
const data = { assets: [] as string[], owners: [] as string[], zkHashes: [] as string[] };

async function seed(db: Db): Promise<void> {
  const zk = loadPhotonCases().snapshotCases.find((c) => c.id === ZK_CASE)!;
  // The ZK case first: it sets the slot-0 checkpoint the Photon recordings are indexed at.
  await replayInputs(db, zk.inputs.map((i) => ({ file: inputFile(i)!, kind: i.kind })), 'separate');
  const cases = loadCases().filter((c) => CNFT_CASES.includes(c.id));
  expect(cases.length).toBe(CNFT_CASES.length);
  for (const c of cases) for (const g of c.inputs) await replayInto(db, g.map((i) => join(DAS_DIR, i.decoded)));
  data.assets = cases.map((c) => (c.params as { id: string }).id);
  proKey = (await createApiKey(db, { name: 'load-professional', plan: 'professional' })).key;
  freeKey = (await createApiKey(db, { name: 'load-free', plan: 'free' })).key;
}

async function rpc<T = any>(method: string, params: unknown, key = proKey): Promise<T> {
  const r = await fetch(`${base}/?api-key=${key}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await r.json()) as { result?: T; error?: { code: number; message: string } };
  if (r.status !== 200 || body.error) throw new Error(`${method} ${JSON.stringify(params).slice(0, 200)}: HTTP ${r.status} ${JSON.stringify(body.error)}`);
  return body.result as T;
}

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) if (line.startsWith(name) && (line[name.length] === ' ' || line[name.length] === '{')) sum += Number(line.split(' ').pop());
  return sum;
}

// ---- independent proof verification ----------------------------------------------------------------------------

const b58 = (s: string) => {
  const b = bs58.decode(s);
  if (b.length !== 32) throw new Error(`node ${s} is not 32 bytes`);
  return b;
};
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const keccakPair = (l: Uint8Array, r: Uint8Array) => keccak_256(new Uint8Array([...l, ...r]));
const toDec = (b: Uint8Array) => BigInt(`0x${hex(b) || '0'}`).toString(10);
const poseidon = (inputs: Uint8Array[]) => light.poseidonHash(inputs.map(toDec));

/** Folds `leaf` up through the bottom-up siblings; bit k of `index` says whether the node is the right child. */
function fold(leaf: Uint8Array, proof: Uint8Array[], index: number, pair: (l: Uint8Array, r: Uint8Array) => Uint8Array): Uint8Array {
  let node = leaf;
  let bits = BigInt(index);
  for (const s of proof) {
    node = bits % 2n === 0n ? pair(node, s) : pair(s, node);
    bits /= 2n;
  }
  return node;
}

/** Proofs verified so far in this file (cumulative: the load and soak sections report the running totals). */
const checked = { bubblegum: 0, zkState: 0, zkAddress: 0 };
const failures: string[] = [];

function expectProof(ok: boolean, what: string): void {
  if (!ok) failures.push(what);
}

/** getAssetProof answer: leaf at node_index (2^depth + leaf index), Keccak-256 pairs. */
function verifyAssetProof(p: { root: string; proof: string[]; node_index: number; leaf: string; tree_id: string }, id: string): void {
  const leafIndex = p.node_index - 2 ** p.proof.length;
  const ok = leafIndex >= 0 && hex(fold(b58(p.leaf), p.proof.map(b58), leafIndex, keccakPair)) === hex(b58(p.root));
  expectProof(ok, `asset ${id} (tree ${p.tree_id})`);
  checked.bubblegum++;
}

/** getCompressedAccountProof answer: Poseidon pairs from the account hash at leafIndex. */
function verifyStateProof(p: { hash: string; leafIndex: number; proof: string[]; root: string; proveByIndex?: boolean }): void {
  const ok = hex(fold(b58(p.hash), p.proof.map(b58), p.leafIndex, (l, r) => poseidon([l, r]))) === hex(b58(p.root));
  expectProof(ok, `compressed account ${p.hash}`);
  checked.zkState++;
}

/**
 * Non-inclusion proof: the low element's leaf — Poseidon(value, nextIndex, nextValue) in V1 address trees,
 * Poseidon(value, nextValue) in V2 — folds to the root, and lower < address < higher.
 */
function verifyAddressProof(p: { address: string; lowerRangeAddress: string; higherRangeAddress: string; nextIndex: number; lowElementLeafIndex: number; proof: string[]; root: string; merkleTree: string }): void {
  const v1 = ADDRESS_TREES.find((a) => a.tree === p.merkleTree)?.v1 ?? false;
  const lo = b58(p.lowerRangeAddress);
  const hi = b58(p.higherRangeAddress);
  const idx = new Uint8Array(32);
  new DataView(idx.buffer).setBigUint64(24, BigInt(p.nextIndex));
  const leaf = v1 ? poseidon([lo, idx, hi]) : poseidon([lo, hi]);
  const a = BigInt(`0x${hex(b58(p.address))}`);
  const inRange = BigInt(`0x${hex(lo)}`) < a && a < BigInt(`0x${hex(hi)}`);
  const ok = inRange && hex(fold(leaf, p.proof.map(b58), p.lowElementLeafIndex, (l, r) => poseidon([l, r]))) === hex(b58(p.root));
  expectProof(ok, `new address ${p.address} (tree ${p.merkleTree})`);
  checked.zkAddress++;
}

/** Calls every proof-returning method for the whole data set and verifies each proof. */
async function sweepProofs(): Promise<void> {
  for (const id of data.assets) {
    const p = await rpc('getAssetProof', { id });
    verifyAssetProof(p, id);
  }
  const batch = await rpc<Record<string, any>>('getAssetProofBatch', { ids: data.assets });
  for (const [id, p] of Object.entries(batch)) {
    expect(p, `getAssetProofBatch ${id}`).not.toBeNull();
    verifyAssetProof(p, id);
  }
  for (const hash of data.zkHashes) {
    verifyStateProof((await rpc('getCompressedAccountProof', { hash })).value);
    verifyStateProof((await rpc('getCompressedAccountProofV2', { hash })).value);
  }
  for (const p of (await rpc('getMultipleCompressedAccountProofs', data.zkHashes)).value) verifyStateProof(p);
  for (const p of (await rpc('getMultipleCompressedAccountProofsV2', data.zkHashes)).value) verifyStateProof(p);
  for (const p of (await rpc('getMultipleNewAddressProofs', NEW_ADDRESSES)).value) verifyAddressProof(p);
  const v2 = NEW_ADDRESSES.flatMap((address) => ADDRESS_TREES.map(({ tree }) => ({ address, tree })));
  for (const p of (await rpc('getMultipleNewAddressProofsV2', v2)).value) verifyAddressProof(p);
}

// ---- load ------------------------------------------------------------------------------------------------------

type Req = { method: 'GET' | 'POST'; path: string; body?: string; headers?: Record<string, string>; onResponse?: (status: number, body: string) => void };
type Who = 'professional' | 'free' | 'none';

/** Status histogram per key, tallied from every response (autocannon's own histogram mixes the keys). */
let tally: Record<Who, Record<string, number>> = { professional: {}, free: {}, none: {} };
let rpcErrors = 0;
const rpcErrorSamples: string[] = [];

function tallied(who: Who, what: string, req: Omit<Req, 'onResponse'>, isRpc: boolean): Req {
  return {
    ...req,
    onResponse: (status, body) => {
      tally[who][status] = (tally[who][status] ?? 0) + 1;
      if (!isRpc || status !== 200) return;
      let error = false;
      try {
        error = 'error' in JSON.parse(body);
      } catch {
        error = true;
      }
      if (error) {
        rpcErrors++;
        if (rpcErrorSamples.length < 5) rpcErrorSamples.push(`${what}: ${body.slice(0, 200)}`);
      }
    },
  };
}

function rpcReq(who: Who, key: string, method: string, params: unknown): Req {
  return tallied(who, method, { method: 'POST', path: `/?api-key=${key}`, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) }, true);
}
const getReq = (who: Who, path: string): Req => tallied(who, path, { method: 'GET', path }, false);

/** One key's share of the mixed read workload. */
function workloadOf(who: Who, key: string): Req[] {
  const reqs: Req[] = [];
  data.owners.forEach((w, i) => {
    reqs.push(getReq(who, `/v1/wallet/${w}/balances?api-key=${key}`));
    if (i % 2 === 0) reqs.push(getReq(who, `/v1/wallet/${w}/history?api-key=${key}`));
    reqs.push(rpcReq(who, key, 'getAssetsByOwner', { ownerAddress: w, page: 1, limit: 10 }));
  });
  data.assets.forEach((id, i) => {
    reqs.push(rpcReq(who, key, 'getAsset', { id }));
    if (i % 2 === 0) reqs.push(rpcReq(who, key, 'getAssetProof', { id }));
  });
  reqs.push(rpcReq(who, key, 'getCompressedAccountsByOwner', { owner: ZK_OWNER }));
  reqs.push(rpcReq(who, key, 'getCompressedBalanceByOwner', { owner: ZK_OWNER }));
  reqs.push(rpcReq(who, key, 'getMultipleCompressedAccountProofs', data.zkHashes));
  reqs.push(rpcReq(who, key, 'getMultipleNewAddressProofs', NEW_ADDRESSES.slice(0, 1)));
  return reqs;
}

/**
 * The mix: the professional workload, /health, and with `free` one free-key request after every ninth
 * professional one (about a tenth of the traffic).
 */
function workload(free: boolean): Req[] {
  const pro = workloadOf('professional', proKey);
  const fr = workloadOf('free', freeKey);
  const out: Req[] = [getReq('none', '/health')];
  pro.forEach((r, i) => {
    out.push(r);
    if (free && i % 9 === 8) out.push(fr[Math.floor(i / 9) % fr.length]);
  });
  return out;
}

/**
 * autocannon starts every connection at the head of its `requests` list; with 1,000 connections each one only
 * gets through a few requests, so each connection instead walks the mix from its own random offset.
 */
function cannon(opts: { connections: number; duration: number; free: boolean }): Promise<autocannon.Result> {
  const mix = workload(opts.free);
  type Ctx = { next?: number; cur?: Req };
  const request = {
    setupRequest: (req: Record<string, unknown>, ctx: Ctx) => {
      ctx.next ??= Math.floor(Math.random() * mix.length);
      const r = (ctx.cur = mix[ctx.next++ % mix.length]);
      return { ...req, method: r.method, path: r.path, body: r.body, headers: r.headers ?? {} };
    },
    onResponse: (status: number, body: string, ctx: Ctx) => ctx.cur?.onResponse?.(status, body),
  };
  return new Promise((resolve, reject) => {
    autocannon(
      { url: base, connections: opts.connections, duration: opts.duration, timeout: REQUEST_TIMEOUT_S, requests: [request] as unknown as autocannon.Request[] },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
  });
}

const statuses = (r: autocannon.Result) => Object.fromEntries(Object.entries((r as unknown as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {}).map(([k, v]) => [k, v.count]));
const summary = (r: autocannon.Result) => ({
  requests: r.requests.total, reqPerSec: Math.round(r.requests.average), p50ms: r.latency.p50, p99ms: r.latency.p99, maxMs: r.latency.max,
  statuses: statuses(r), errors: r.errors, timeouts: r.timeouts, non2xx: r.non2xx,
});

/** Least-squares slope of (minute, MB) over the samples. */
function slopeMbPerMin(samples: { at: number; rss: number }[]): number {
  if (samples.length < 2) return 0;
  const xs = samples.map((s) => s.at / 60_000);
  const ys = samples.map((s) => s.rss / 2 ** 20);
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < xs.length; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/** Memory over time for the report: the mean RSS (MiB) of each minute's samples. */
function rssByMinute(samples: { at: number; rss: number }[]): number[] {
  const byMinute: number[][] = [];
  for (const s of samples) (byMinute[Math.floor(s.at / 60_000)] ??= []).push(s.rss / 2 ** 20);
  return Array.from(byMinute, (xs) => (xs?.length ? Math.round(xs.reduce((a, b) => a + b, 0) / xs.length) : 0));
}

function sampleRss(): { samples: { at: number; rss: number }[]; stop: () => Promise<void> } {
  const samples: { at: number; rss: number }[] = [];
  const start = Date.now();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        samples.push({ at: Date.now() - start, rss: await metric(RSS_METRIC) });
      } catch {
        /* a scrape that fails under load is just a missing sample */
      }
      await new Promise((r) => setTimeout(r, RSS_SAMPLE_MS));
    }
  })();
  return { samples, stop: async () => { stopped = true; await loop; } };
}

/** Proof sweeps in a loop beside the load (each sweep waits for the previous). */
function proofLoop(): { stop: () => Promise<number> } {
  let stopped = false;
  let sweeps = 0;
  const loop = (async () => {
    while (!stopped) {
      await sweepProofs();
      sweeps++;
    }
  })();
  return { stop: async () => { stopped = true; await loop; return sweeps; } };
}

const hasServer = () => server !== null && server.exitCode === null;

beforeAll(async () => {
  light = await WasmFactory.getInstance();
  let env: Record<string, string>;
  if (process.env.DATABASE_URL) {
    t = await createTestDb();
    await seed(t.db);
    env = { DATABASE_URL: t.url! };
  } else {
    dataDir = mkdtempSync(join(tmpdir(), 'solgate-load-'));
    const db = await openDb({ dataDir });
    await migrate(db);
    await seed(db);
    await db.close();
    env = { DATABASE_URL: '', SOLGATE_DATA_DIR: dataDir };
  }
  const plans = join(tmpdir(), `solgate-load-plans-${process.pid}.json`);
  const high = { rpc: 1_000_000, das: 1_000_000, photon: 1_000_000, validityProof: 1_000_000, sendTransaction: 1_000_000, wallet: 1_000_000 };
  writeFileSync(plans, JSON.stringify({ plans: { professional: { perSecond: high, monthlyCredits: null } } }));
  const port = await freePort();
  server = spawn(process.execPath, [join(ROOT, 'bin', 'solgate.js'), 'serve'], {
    cwd: ROOT,
    env: {
      ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', SOLANA_RPC_URL: '', SOLGATE_PLANS_FILE: plans,
      SOLGATE_WEBHOOK_CONCURRENCY: '0', SOLGATE_OFFCHAIN_FETCH: 'false', REDIS_URL: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout!.on('data', (d: Buffer) => output.push(String(d)));
  server.stderr!.on('data', (d: Buffer) => output.push(String(d)));
  base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (!hasServer()) throw new Error(`solgate serve exited\n${output.join('')}`);
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`solgate serve did not come up\n${output.join('')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  // The data set as the server answers it: owners of the cNFTs, the live compressed accounts.
  const owners = new Set<string>();
  for (const id of data.assets) owners.add((await rpc('getAsset', { id })).ownership.owner);
  data.owners = [...owners];
  data.zkHashes = (await rpc('getCompressedAccountsByOwner', { owner: ZK_OWNER })).value.items.map((a: { hash: string }) => a.hash);
  expect(data.zkHashes.length).toBeGreaterThan(0);
}, 300_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((r) => { const k = setTimeout(() => { server!.kill('SIGKILL'); r(null); }, 40_000); server!.once('exit', () => { clearTimeout(k); r(null); }); });
  }
  await t?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('load, memory and proof invariants against solgate serve', () => {
  it(`${CONNECTIONS} connections for ${LOAD_SECONDS} s: no errors but the free key's 429s; every proof verifies`, async () => {
    await sweepProofs();
    expect(failures).toEqual([]);
    const before = { ...checked };
    const rss = sampleRss();
    const proofs = proofLoop();
    tally = { professional: {}, free: {}, none: {} };
    const load = await cannon({ connections: CONNECTIONS, duration: LOAD_SECONDS, free: true });
    const sweeps = await proofs.stop();
    await rss.stop();
    await sweepProofs();
    const proofFailuresMetric = await metric('solgate_proof_verification_failures_total');
    const figures = {
      variant: LONG ? 'long' : 'short', connections: CONNECTIONS, seconds: LOAD_SECONDS, dataSet: { assets: data.assets.length, owners: data.owners.length, zkAccounts: data.zkHashes.length },
      load: summary(load), statusesByKey: tally, jsonRpcErrors: rpcErrors,
      rssMb: rss.samples.map((s) => Math.round(s.rss / 2 ** 20)), rssTrendMbPerMin: Number(slopeMbPerMin(rss.samples).toFixed(2)),
      proofSweepsDuringLoad: sweeps, proofsChecked: { ...checked, total: checked.bubblegum + checked.zkState + checked.zkAddress },
      proofsCheckedBeforeLoad: before, proofFailures: failures.length, serverProofVerificationFailures: proofFailuresMetric,
    };
    record('load', figures);
    console.log('load:', JSON.stringify(figures));
    expect(hasServer(), output.join('').slice(-3000)).toBe(true);
    // Invariants: no socket errors or timeouts anywhere; the professional key only 2xx and no JSON-RPC errors;
    // the free key only 2xx or its 429s; every proof verified, here and on the server.
    expect(load.errors, 'socket errors').toBe(0);
    expect(load.timeouts, 'timeouts').toBe(0);
    expect(Object.keys(tally.professional).filter((s) => !/^2/.test(s)), JSON.stringify(tally)).toEqual([]);
    expect(Object.keys(tally.none).filter((s) => !/^2/.test(s)), JSON.stringify(tally)).toEqual([]);
    expect(Object.keys(tally.free).filter((s) => !/^2/.test(s) && s !== '429'), JSON.stringify(tally)).toEqual([]);
    expect(tally.free['429'] ?? 0, 'the free key was limited').toBeGreaterThan(0);
    expect(load.non2xx, 'non-2xx answers are exactly the free key\'s 429s').toBe(tally.free['429']);
    expect(rpcErrors, rpcErrorSamples.join('\n')).toBe(0);
    expect(load.requests.total).toBeGreaterThan(0);
    expect(failures).toEqual([]);
    expect(sweeps).toBeGreaterThan(0);
    expect(proofFailuresMetric).toBe(0);
  });

  it.runIf(LONG)(`${SOAK_MINUTES}-minute soak at ${SOAK_CONNECTIONS} connections: no RSS growth trend`, async () => {
    const rss = sampleRss();
    const proofs = proofLoop();
    tally = { professional: {}, free: {}, none: {} };
    const soak = await cannon({ connections: SOAK_CONNECTIONS, duration: SOAK_MINUTES * 60, free: false });
    const sweeps = await proofs.stop();
    await rss.stop();
    const secondHalf = rss.samples.filter((s) => s.at >= (SOAK_MINUTES * 60_000) / 2);
    const trend = slopeMbPerMin(secondHalf);
    const proofFailuresMetric = await metric('solgate_proof_verification_failures_total');
    const mb = rss.samples.map((s) => s.rss / 2 ** 20);
    record('load-soak', {
      minutes: SOAK_MINUTES, connections: SOAK_CONNECTIONS, soak: summary(soak), statusesByKey: tally, rssSamples: rss.samples.length,
      rssMbByMinute: rssByMinute(rss.samples),
      rssMbFirst: Math.round(mb[0] ?? 0), rssMbLast: Math.round(mb.at(-1) ?? 0), rssMbMax: Math.round(Math.max(...mb)),
      rssTrendSecondHalfMbPerMin: Number(trend.toFixed(3)), rssTrendThresholdMbPerMin: SOAK_MAX_MB_PER_MIN,
      proofSweeps: sweeps, proofsChecked: { ...checked }, proofFailures: failures.length, serverProofVerificationFailures: proofFailuresMetric,
    });
    expect(soak.errors).toBe(0);
    expect(soak.timeouts).toBe(0);
    expect(soak.non2xx, JSON.stringify(statuses(soak))).toBe(0);
    expect(rpcErrors, rpcErrorSamples.join('\n')).toBe(0);
    expect(failures).toEqual([]);
    expect(proofFailuresMetric).toBe(0);
    expect(trend).toBeLessThan(SOAK_MAX_MB_PER_MIN);
    // The soak alone lasts SOAK_MINUTES; the config's 30-minute test timeout would cut it off.
  }, (SOAK_MINUTES + 15) * 60_000);
});
