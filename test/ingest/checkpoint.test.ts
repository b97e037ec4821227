/** The checkpoint is the highest ingested block: account snapshots never move it; blocks never move it back. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDb, seedLightTrees, type TestDb } from '../helpers/db.js';
import { createIngester } from '../../src/ingest/pipeline.js';
import { getCheckpoint } from '../../src/store/chain.js';
import { normalizeAccountSnapshot, normalizeRpcTransaction } from '../../src/sources/normalize-rpc.js';

const FIX = join(import.meta.dirname, '..', 'fixtures');
const accDir = join(FIX, 'das', 'decoded', 'accounts', 'reg_get_asset');
const txDir = join(FIX, 'photon-transactions', 'lamport_transfers');

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
  // The recorded transactions are Light (ZK Compression) ones: their trees must be known to index them.
  await seedLightTrees(t.db);
});
afterAll(async () => t?.drop());

describe('checkpoint', () => {
  it('account snapshots (even at high slots) leave it unset; blocks set it; older blocks never lower it', async () => {
    const ing = createIngester(t.db);
    const accounts = readdirSync(accDir).map((f) => normalizeAccountSnapshot(JSON.parse(readFileSync(join(accDir, f), 'utf8'))));
    expect(Math.max(...accounts.map((a) => a.slot))).toBeGreaterThan(0);
    await ing.ingestAccounts(accounts);
    expect(await getCheckpoint(t.db)).toBeNull();
    const txs = readdirSync(txDir).map((f) => normalizeRpcTransaction(JSON.parse(readFileSync(join(txDir, f), 'utf8'))));
    const slots = txs.map((x) => x.slot).sort((a, b) => a - b);
    const newest = txs.find((x) => x.slot === slots[slots.length - 1])!;
    const oldest = txs.find((x) => x.slot === slots[0])!;
    const block = (tx: typeof newest) => ({ slot: tx.slot, parentSlot: null, blockhash: null, previousBlockhash: null, blockTime: tx.blockTime, blockHeight: null, transactions: [tx] });
    await ing.ingestBlocks([block(newest)]);
    expect(await getCheckpoint(t.db)).toBe(newest.slot);
    await ing.ingestBlocks([block(oldest)]);
    expect(await getCheckpoint(t.db)).toBe(newest.slot);
  });
});
