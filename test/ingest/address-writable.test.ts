/**
 * The written flag of the direct address links (address_transactions.writable, migration 027) on a real mainnet
 * block (slot 254170887: legacy and v0 transactions, writable keys loaded from lookup tables, 305 failed ones):
 * replayed into the store, every relation-1 row says exactly what an independent reading of the wire transaction
 * says — its writable keys (message header, then `meta.loadedAddresses.writable`) for a successful transaction, only
 * the fee payer for a failed one — and every linked key whose lamports changed is marked written. A durable-nonce
 * transaction of the block, folded as if it had failed, still writes its nonce account.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getBase58Decoder, getCompiledTransactionMessageDecoder, getTransactionDecoder } from '@solana/kit';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { replayInto } from '../../src/ingest/replay.js';
import { foldBlock } from '../../src/ingest/fold-block.js';
import { normalizeRpcBlock } from '../../src/sources/normalize-rpc.js';

const SLOT = 254170887;
const BLOCK = join(import.meta.dirname, '..', 'fixtures', 'photon-blocks', 'index_block_metadata', String(SLOT));
const VOTE = 'Vote111111111111111111111111111111111111111';
const SYSTEM = '11111111111111111111111111111111';

interface WireTx {
  signature: string;
  keys: string[];
  written: Set<string>;
  failed: boolean;
  /** Writable keys loaded from lookup tables. */
  loadedWritable: string[];
  lamportsChanged: Set<string>;
  advancesNonce: boolean;
}

/** The block's non-vote transactions read straight from the wire bytes and the RPC meta (not through solgate's model). */
function readBlock(): WireTx[] {
  const raw = JSON.parse(readFileSync(BLOCK, 'utf8')) as { transactions: { transaction: [string, string]; meta: any }[] };
  const out: WireTx[] = [];
  for (const t of raw.transactions) {
    const tx = getTransactionDecoder().decode(Buffer.from(t.transaction[0], 'base64'));
    // Legacy and v0 messages (the block has no v1 ones): header, static keys, instructions.
    const m = getCompiledTransactionMessageDecoder().decode(tx.messageBytes) as unknown as {
      header: { numSignerAccounts: number; numReadonlySignerAccounts: number; numReadonlyNonSignerAccounts: number };
      staticAccounts: string[];
      instructions: { programAddressIndex: number; data?: Uint8Array }[];
    };
    const statics = m.staticAccounts;
    if (m.instructions.every((ix) => statics[ix.programAddressIndex] === VOTE)) continue;
    const h = m.header;
    const loadedW: string[] = t.meta.loadedAddresses?.writable ?? [];
    const loadedR: string[] = t.meta.loadedAddresses?.readonly ?? [];
    const keys = [...statics, ...loadedW, ...loadedR];
    const written = new Set<string>();
    statics.forEach((k, i) => {
      const signer = i < h.numSignerAccounts;
      if (signer ? i < h.numSignerAccounts - h.numReadonlySignerAccounts : i < statics.length - h.numReadonlyNonSignerAccounts) written.add(k);
    });
    for (const k of loadedW) written.add(k);
    const lamportsChanged = new Set(keys.filter((_, i) => t.meta.preBalances[i] !== t.meta.postBalances[i]));
    const first = m.instructions[0];
    const advancesNonce = !!first && statics[first.programAddressIndex] === SYSTEM && first.data?.[0] === 4 && first.data.length === 4;
    const signature = getBase58Decoder().decode(Object.values(tx.signatures)[0]!);
    out.push({ signature, keys, written, failed: t.meta.err !== null, loadedWritable: loadedW, lamportsChanged, advancesNonce });
  }
  return out;
}

let t: TestDb;
let wire: WireTx[];
let rows: { address: string; signature: string; writable: boolean | null }[];
/** The stored flag of each direct link, by `signature|address`. */
let linked: Map<string, boolean | null>;

beforeAll(async () => {
  t = await createTestDb();
  await replayInto(t.db, [BLOCK]);
  wire = readBlock();
  rows = (await t.db.query<{ address: string; signature: string; writable: boolean | null }>('SELECT a.address, t.signature, a.writable FROM address_transactions a JOIN transactions t ON t.slot = a.slot AND t.tx_index = a.tx_index WHERE a.relation = 1')).rows;
  linked = new Map(rows.map((r) => [`${r.signature}|${r.address}`, r.writable]));
}, 120_000);
afterAll(async () => t?.drop());

/** Expects every linked one of `keys` marked written by `w`; returns how many were linked. */
function expectWritten(w: WireTx, keys: Iterable<string>): number {
  let n = 0;
  for (const k of keys) {
    const v = linked.get(`${w.signature}|${k}`);
    if (v === undefined) continue;
    expect(v, `${w.signature} ${k}`).toBe(true);
    n++;
  }
  return n;
}

describe('address_transactions.writable on a real block', () => {
  it('marks the keys each transaction wrote: writable keys when it succeeded, only the fee payer when it failed', () => {
    const bySig = new Map(wire.map((w) => [w.signature, w]));
    expect(wire.length).toBe(444);
    const seen = { written: 0, read: 0, failedWritableKeyNotWritten: 0 };
    for (const r of rows) {
      const w = bySig.get(r.signature);
      expect(w, r.signature).toBeDefined();
      const expected = w!.failed ? r.address === w!.keys[0] : w!.written.has(r.address);
      expect(r.writable, `${r.signature} ${r.address}`).toBe(expected);
      if (r.writable) seen.written++;
      else seen.read++;
      if (w!.failed && !r.writable && w!.written.has(r.address)) seen.failedWritableKeyNotWritten++;
    }
    expect(rows.length).toBeGreaterThan(2000);
    expect(seen.written).toBeGreaterThan(500);
    expect(seen.read).toBeGreaterThan(500);
    expect(seen.failedWritableKeyNotWritten).toBeGreaterThan(100);
    // Every key of a transaction that changed lamports, when linked, is marked written.
    expect(wire.reduce((n, w) => n + expectWritten(w, w.lamportsChanged), 0)).toBeGreaterThan(400);
  });

  it('writable keys loaded from lookup tables are marked written', () => {
    expect(wire.filter((w) => !w.failed).reduce((n, w) => n + expectWritten(w, w.loadedWritable), 0)).toBeGreaterThan(10);
  });

  it('a failed durable-nonce transaction still writes its nonce account', async () => {
    const raw = JSON.parse(readFileSync(BLOCK, 'utf8'));
    const block = normalizeRpcBlock(raw, SLOT, { skipVotes: true });
    const tx = block.transactions.find((x) => wire.find((w) => w.signature === x.signature)?.advancesNonce);
    expect(tx).toBeDefined();
    const nonce = tx!.accountKeys[tx!.instructions[0].accounts[0]];
    const failed = { ...tx!, meta: { ...tx!.meta!, err: { InstructionError: [1, { Custom: 1 }] } } };
    const links = foldBlock({ ...block, transactions: [failed] }, [{ tx: failed, events: [] }]).addressLinks.filter((l) => l.relation === 1);
    const written = links.filter((l) => l.writable).map((l) => l.address).sort();
    expect(written).toEqual([tx!.accountKeys[0], nonce].sort());
    expect(links.length).toBeGreaterThan(written.length);
  });
});
