/**
 * Whole blocks are first written with their address links and wallet transfers as plain inserts; a block whose rows
 * are (partly) stored already falls back to the guarded statement. Either way the tables hold what the guarded
 * writers alone would store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, Queryable } from '../../src/store/db.js';
import { emptyUpdate, type AddressLinkRow, type BlockUpdate, type WalletTransferRow } from '../../src/store/block-update.js';
import { COPY_MIN_LINKS, writeUpdates, writeUpdatesInTx } from '../../src/store/write-block.js';
import { writeBlocks, writeTransactions, advanceCheckpoint } from '../../src/store/chain.js';
import { writeAddressLinks } from '../../src/store/address-links.js';
import { writeTransfers } from '../../src/store/wallet-activity.js';
import { priorityFeesStatement } from '../../src/store/priority-fees.js';
import { createTestDb, tableDigests, type TestDb } from '../helpers/db.js';

const A = 'Gv1ZyXGeGx7kRD6jPESjGJvcvPGTmkyNTEqMGJgHVkuT';
const B = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDEsYjvtt7vkVdfqZ';
const MINT = 'So11111111111111111111111111111111111111112';
const sig = (slot: number, i: number) => `${slot}${i}`.padEnd(88, 'x');

function block(slot: number, txs: number, over: (l: AddressLinkRow) => AddressLinkRow = (l) => l): BlockUpdate {
  const u = emptyUpdate(slot);
  u.block = { slot, parentSlot: slot - 1, blockhash: `hash${slot}`, blockTime: 1000 + slot, blockHeight: slot, txCount: txs };
  for (let i = 0; i < txs; i++) {
    const signature = sig(slot, i);
    u.transactions.push({ signature, slot, txIndex: i, blockTime: 1000 + slot, fee: 5000n, feePayer: A, err: null, hasMeta: true, enhancedType: 'TRANSFER', memo: null });
    for (const [address, relation] of [[A, 1], [B, 2]] as const) {
      u.addressLinks.push(over({ address, slot, txIndex: i, relation, changes: relation === 2 ? [{ mint: MINT, amount: '-5', decimals: 9 }] : null, enhancedType: 'TRANSFER', writable: relation === 1 ? true : null }));
    }
    const t: WalletTransferRow = { wallet: A, slot, txIndex: i, signature, ord: 0, direction: 'o', counterparty: B, mint: MINT, amount: 5n, decimals: 9, blockTime: 1000 + slot };
    u.transfers.push(t, { ...t, wallet: B, direction: 'i', counterparty: A });
  }
  return u;
}

/** The same updates through the guarded writers one table at a time. */
async function writeGuarded(db: Db, updates: BlockUpdate[]): Promise<void> {
  for (const u of updates) {
    await writeBlocks(db, u.block ? [u.block] : []);
    await writeTransactions(db, u.transactions);
    await writeAddressLinks(db, u.addressLinks);
    await writeTransfers(db, u.transfers);
    if (u.slot !== null) await advanceCheckpoint(db, u.slot);
  }
}

/** The data-modifying CTE of a combined statement (src/store/bulk.ts) that inserts into `table`, if any. */
const cte = (sql: string, table: string) => sql.split(/_w\d+ AS \(/).find((part) => part.startsWith(`INSERT INTO ${table} `));

/** `q` with the SQL of every statement it runs recorded into `sql` (a COPY as `COPY <table>`). */
function recordingQ<Q extends Queryable>(q: Q, sql: string[]): Q {
  const wrapped = Object.create(q) as Q;
  wrapped.query = ((text: string, params?: unknown[]) => {
    sql.push(text);
    return q.query(text, params);
  }) as Q['query'];
  if (q.copyFrom)
    wrapped.copyFrom = (table, columns, text) => {
      sql.push(`COPY ${table}`);
      return q.copyFrom?.(table, columns, text) as Promise<void>;
    };
  return wrapped;
}

/** `db` with the SQL of every statement it runs, in transactions too, recorded (BEGIN and COMMIT not). */
function recording(db: Db): { db: Db; sql: string[] } {
  const sql: string[] = [];
  const wrapped = recordingQ(db, sql);
  wrapped.tx = ((fn: (q: Queryable) => Promise<unknown>) => db.tx((q) => fn(recordingQ(q, sql)))) as Db['tx'];
  return { db: wrapped, sql };
}

// address_transactions: the links one per row (a view of address_slots, migration 046).
const TABLES = ['blocks', 'transactions', 'address_transactions', 'address_typed', 'wallet_transfers', 'ingest_checkpoint'];
let fresh: TestDb;
let guarded: TestDb;
let rec: ReturnType<typeof recording>;
beforeAll(async () => {
  fresh = await createTestDb();
  rec = recording(fresh.db);
  guarded = await createTestDb();
});
afterAll(async () => {
  await fresh?.drop();
  await guarded?.drop();
});

describe('writeUpdates: plain inserts for new blocks, the guarded statement otherwise', () => {
  it('stores what the guarded writers store, for new blocks, a block written again and a block partly stored', async () => {
    const first = [block(100, 3), block(101, 2)];
    await writeUpdates(rec.db, first);
    // New blocks: one statement, the links and transfers without ON CONFLICT.
    expect(rec.sql).toHaveLength(1);
    expect(cte(rec.sql[0], 'address_slots')).not.toMatch(/ON CONFLICT/);
    expect(cte(rec.sql[0], 'address_typed')).not.toMatch(/ON CONFLICT/);
    expect(cte(rec.sql[0], 'wallet_transfers')).not.toMatch(/ON CONFLICT/);

    // The same blocks again: the plain insert fails, the guarded one stores nothing new.
    const before = await tableDigests(fresh.db, TABLES);
    await writeUpdates(rec.db, [block(101, 2)]);
    expect(rec.sql.slice(1)).toHaveLength(2);
    expect(rec.sql[2]).toMatch(/ON CONFLICT \(address, slot\) DO UPDATE/);
    expect(await tableDigests(fresh.db, TABLES)).toEqual(before);

    // A block some of whose links are stored with weaker relations and no written flag: merged as guarded.
    const partly = block(102, 2);
    await writeAddressLinks(fresh.db, partly.addressLinks.slice(0, 1).map((l) => ({ ...l, relation: 3, writable: null })));
    await writeGuarded(guarded.db, first);
    await writeAddressLinks(guarded.db, partly.addressLinks.slice(0, 1).map((l) => ({ ...l, relation: 3, writable: null })));
    await writeUpdates(fresh.db, [partly, block(103, 1, (l) => ({ ...l, enhancedType: null }))]);
    await writeGuarded(guarded.db, [partly, block(103, 1, (l) => ({ ...l, enhancedType: null }))]);
    expect(await tableDigests(fresh.db, TABLES)).toEqual(await tableDigests(guarded.db, TABLES));
    const { rows } = await fresh.db.query<{ relation: number; writable: boolean | null }>(
      'SELECT relation, writable FROM address_transactions WHERE address = $1 AND slot = 102 AND tx_index = 0',
      [A],
    );
    expect(rows).toEqual([{ relation: 1, writable: true }]);
  });

  it('further statements with a plain form (priority fees) go plain with new blocks, guarded after a conflict', async () => {
    const fees = (slots: number[], rate: bigint) => priorityFeesStatement(slots.flatMap((slot) => [
      { slot, account: '*', rates: [rate, 2n * rate], votes: 3 },
      { slot, account: A, rates: [rate], votes: 0 },
    ]));
    rec.sql.length = 0;
    await writeUpdates(rec.db, [block(500, 1)], [fees([500], 7n)!]);
    expect(rec.sql).toHaveLength(1);
    expect(cte(rec.sql[0], 'priority_fees')).not.toMatch(/ON CONFLICT/);
    // Slot 500's samples again beside a new block: the plain statement fails as a whole, the guarded one keeps the
    // stored samples of 500 and adds 501's.
    await writeUpdates(rec.db, [block(501, 1)], [fees([500, 501], 9n)!]);
    expect(rec.sql).toHaveLength(3);
    expect(cte(rec.sql[2], 'priority_fees')).toMatch(/ON CONFLICT \(account, slot\) DO NOTHING/);
    const { rows } = await fresh.db.query<{ slot: string; account: string; rates: string[] }>(
      "SELECT slot::text, account, rates::text[] AS rates FROM priority_fees WHERE slot IN (500, 501) ORDER BY slot, account",
    );
    expect(rows).toEqual([
      { slot: '500', account: '*', rates: ['7', '14'] },
      { slot: '500', account: A, rates: ['7'] },
      { slot: '501', account: '*', rates: ['9', '18'] },
      { slot: '501', account: A, rates: ['9'] },
    ]);
    await writeGuarded(guarded.db, [block(500, 1), block(501, 1)]);
    expect(await tableDigests(fresh.db, TABLES)).toEqual(await tableDigests(guarded.db, TABLES));
  });

  it("in a caller's transaction a conflict rolls back to a savepoint and the transaction goes on", async () => {
    const sql: string[] = [];
    await fresh.db.tx(async (q) => {
      const r = recordingQ(q, sql);
      await writeUpdatesInTx(r, [block(300, 2)]);
      await writeUpdatesInTx(r, [block(300, 2), block(301, 1)]);
    });
    expect(sql.filter((s) => s.startsWith('ROLLBACK TO SAVEPOINT'))).toHaveLength(1);
    await writeGuarded(guarded.db, [block(300, 2), block(301, 1)]);
    expect(await tableDigests(fresh.db, TABLES)).toEqual(await tableDigests(guarded.db, TABLES));
  });

  it('after a conflict, new blocks go plain again', async () => {
    rec.sql.length = 0;
    for (let slot = 200; slot < 210; slot++) await writeUpdates(rec.db, [block(slot, 1)]);
    expect(rec.sql).toHaveLength(10);
    expect(rec.sql.filter((s) => /ON CONFLICT \(address, slot\)/.test(s))).toHaveLength(0);
    await writeGuarded(guarded.db, Array.from({ length: 10 }, (_, k) => block(200 + k, 1)));
    expect(await tableDigests(fresh.db, TABLES)).toEqual(await tableDigests(guarded.db, TABLES));
  });

  it(`a batch of ${COPY_MIN_LINKS} links or more goes by COPY, and a COPY that meets stored rows falls back to the guarded statement`, async () => {
    // Two links per transaction: the smallest batch that is copied, in two blocks.
    // One transaction with an error and a memo that COPY text must escape (tab, backslash, line break, quotes).
    const big = () => {
      const blocks = [block(600, COPY_MIN_LINKS / 4), block(601, COPY_MIN_LINKS / 4)];
      Object.assign(blocks[0].transactions[1], { err: { InstructionError: [0, { Custom: 6001 }] }, memo: '[3] a\tb\\c\n"q"' });
      return blocks;
    };
    rec.sql.length = 0;
    const fees = priorityFeesStatement([600, 601].map((slot) => ({ slot, account: A, rates: [5n, 7n], votes: 0 })))!;
    await writeUpdates(rec.db, big(), [fees]);
    // The links, the transactions, the transfers and the priority-fee samples by COPY; the rest in one statement.
    expect(rec.sql.slice(0, -1)).toEqual(['COPY address_slots', 'COPY address_typed', 'COPY transactions', 'COPY wallet_transfers', 'COPY priority_fees']);
    const rest = rec.sql.at(-1) as string;
    for (const table of ['address_slots', 'transactions', 'wallet_transfers', 'priority_fees']) expect(cte(rest, table)).toBeUndefined();
    expect(cte(rest, 'blocks')).toMatch(/ON CONFLICT/);
    await writeGuarded(guarded.db, big());
    expect(await tableDigests(fresh.db, TABLES)).toEqual(await tableDigests(guarded.db, TABLES));
    const { rows: feeRows } = await fresh.db.query<{ slot: string; rates: string[] }>(
      'SELECT slot::text AS slot, rates::text[] AS rates FROM priority_fees WHERE slot IN (600, 601) ORDER BY slot');
    expect(feeRows).toEqual([{ slot: '600', rates: ['5', '7'] }, { slot: '601', rates: ['5', '7'] }]);
    const { rows: odd } = await fresh.db.query<{ err: unknown; memo: string }>('SELECT err, memo FROM transactions WHERE signature = $1', [sig(600, 1)]);
    expect(odd).toEqual([{ err: { InstructionError: [0, { Custom: 6001 }] }, memo: '[3] a\tb\\c\n"q"' }]);

    // Again, with one block more: the COPY fails as a whole, the guarded statement adds the new block only.
    rec.sql.length = 0;
    await writeUpdates(rec.db, [...big(), block(602, 3)]);
    expect(rec.sql).toEqual(['COPY address_slots', expect.stringMatching(/ON CONFLICT \(address, slot\) DO UPDATE/)]);
    await writeGuarded(guarded.db, [block(602, 3)]);
    expect(await tableDigests(fresh.db, TABLES)).toEqual(await tableDigests(guarded.db, TABLES));

    // The same in a caller's transaction: COPY inside the savepoint, rolled back to it on the conflict.
    const sql: string[] = [];
    await fresh.db.tx(async (q) => {
      const r = recordingQ(q, sql);
      await writeUpdatesInTx(r, [block(610, COPY_MIN_LINKS / 2)]);
      await writeUpdatesInTx(r, [block(610, COPY_MIN_LINKS / 2), block(611, 2)]);
    });
    expect(sql.filter((s) => s === 'COPY address_slots')).toHaveLength(2);
    expect(sql.filter((s) => s.startsWith('ROLLBACK TO SAVEPOINT'))).toHaveLength(1);
    await writeGuarded(guarded.db, [block(610, COPY_MIN_LINKS / 2), block(611, 2)]);
    expect(await tableDigests(fresh.db, TABLES)).toEqual(await tableDigests(guarded.db, TABLES));
  }, 120_000);

  it('links of one (address, transaction) repeated in a batch, apart or in a row, collapse to one row', async () => {
    // Two transactions of slot 400 and one of 401 in two updates; A's link to tx 0 of slot 400 comes three times,
    // with other transactions' links between them: the strongest relation, the first known changes, the latest
    // known written flag, the first link's position and type.
    const u = block(400, 2);
    const later = block(401, 1);
    const base = u.addressLinks[0];
    const change = [{ mint: MINT, amount: '7', decimals: 9 }];
    u.addressLinks[0] = { ...base, relation: 3, changes: null, writable: null };
    u.addressLinks.push({ ...base, relation: 2, changes: change, writable: null, enhancedType: 'SWAP' });
    later.addressLinks.push({ ...base, relation: 1, changes: [{ mint: MINT, amount: '8', decimals: 9 }], writable: false });
    later.addressLinks.push({ ...base, slot: 400, txIndex: 1, relation: 3, writable: null });
    await writeUpdates(fresh.db, [u, later]);
    const { rows } = await fresh.db.query<{ slot: string; tx_index: number; relation: number; changes: unknown; writable: boolean | null; enhanced_type: string }>(
      'SELECT slot::text, tx_index, relation, changes, writable, enhanced_type FROM address_transactions WHERE address = $1 AND slot IN (400, 401) ORDER BY slot, tx_index',
      [A],
    );
    expect(rows).toEqual([
      { slot: '400', tx_index: 0, relation: 1, changes: change, writable: false, enhanced_type: 'TRANSFER' },
      { slot: '400', tx_index: 1, relation: 1, changes: null, writable: true, enhanced_type: 'TRANSFER' },
      { slot: '401', tx_index: 0, relation: 1, changes: null, writable: true, enhanced_type: 'TRANSFER' },
    ]);
  });

  it("an address twice among one transaction's links, one after the other, collapses to one row", async () => {
    // Every transaction's links consecutive and no position met twice: only the repeat inside tx 0 tells.
    const u = block(410, 2);
    const base = u.addressLinks[0];
    u.addressLinks.splice(1, 0, { ...base, relation: 2, changes: [{ mint: MINT, amount: '3', decimals: 9 }], writable: null });
    await writeUpdates(fresh.db, [u]);
    const { rows } = await fresh.db.query<{ tx_index: number; relation: number; changes: unknown; writable: boolean | null }>(
      'SELECT tx_index, relation, changes, writable FROM address_transactions WHERE address = $1 AND slot = 410 ORDER BY tx_index',
      [A],
    );
    expect(rows).toEqual([
      { tx_index: 0, relation: 1, changes: [{ mint: MINT, amount: '3', decimals: 9 }], writable: true },
      { tx_index: 1, relation: 1, changes: null, writable: true },
    ]);
  });
});
