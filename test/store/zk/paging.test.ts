/**
 * Keyset paging in Photon's orders and cursor layouts: walking a list page by page with a small limit visits every
 * row exactly once, in the same order as one big page; the last page's cursor is null (also when it comes back
 * empty because the row count is a multiple of the limit). Rows here are synthetic; the signature orders of
 * Photon's recorded lists are checked with their real signatures.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../../helpers/db.js';
import { base58ToBytes } from '../../../src/core/encoding.js';
import { emptyZkWrite, type ZkAccountRow, type ZkPage } from '../../../src/store/zk/types.js';
import { writeZk } from '../../../src/store/zk/write.js';
import { getAccountsByOwner, getTokenAccounts } from '../../../src/store/zk/accounts.js';
import { getMintTokenHolders, getTokenBalancesByOwner } from '../../../src/store/zk/balances.js';
import { getLatestSignatures, getSignaturesFor } from '../../../src/store/zk/transactions.js';
import {
  decodeHolderCursor, decodeSignatureCursor, decodeTokenAccountCursor, decodeMintCursor, decodeHashCursor,
} from '../../../src/store/zk/cursors.js';
import { SolgateError } from '../../../src/core/errors.js';
import bs58 from 'bs58';
import { snapshot, synth, synthBytes, synthSig, TOKEN_PROGRAM, SMT1, NFQ1 } from './scenario.js';

let t: TestDb;
const bytes = (s: string) => Buffer.from(base58ToBytes(s));
/** Base58 of `n` bytes of value `fill` (1 by default, so no leading-zero shortening). */
const b58of = (n: number, fill = 1) => bs58.encode(new Uint8Array(n).fill(fill));
const cmp = (a: string, b: string) => Buffer.compare(bytes(a), bytes(b));

const OWNER = synth('paging:owner');
const DELEGATE = synth('paging:delegate');
const MINTS = [0, 1, 2].map((i) => synth(`paging:mint:${i}`));
const HOLDER_MINT = MINTS[0];

function account(i: number, o: Partial<ZkAccountRow> = {}): ZkAccountRow {
  return {
    hash: synth(`paging:hash:${i}`),
    address: null,
    owner: OWNER,
    lamports: BigInt(i),
    data: { discriminator: 1n, data: synthBytes(`paging:data:${i % 3}`, 16), dataHash: synth(`paging:datahash:${i}`) },
    tree: SMT1,
    queue: NFQ1,
    treeType: 1,
    leafIndex: 1000 + i,
    seq: 1000 + i,
    slotCreated: 1,
    inOutputQueue: false,
    token: null,
    ...o,
  };
}

// 23 plain accounts of OWNER (3 of them spent later) and 5 of another owner. Leaf indexes run against creation order
// and repeat across two trees (ties broken by hash).
const BMT1 = 'bmt1LryLZUMmF7ZtqESaw7wifBXLfXHQYoE4GAmrahU';
const OQ1 = 'oq1na8gojfdUhsfCpyjNt6h4JaDWtHf1yQj4koBWfto';
const plain = Array.from({ length: 23 }, (_, i) => account(i, i % 2 ? { leafIndex: 1000 + 20 - (i % 7), tree: BMT1, queue: OQ1, treeType: 3, seq: null } : {}));
const others = Array.from({ length: 5 }, (_, i) => account(100 + i, { owner: synth('paging:other') }));
// 15 token accounts of OWNER: 5 per mint; every third delegated; 2 spent.
const tokens = Array.from({ length: 15 }, (_, i) =>
  account(200 + i, {
    owner: TOKEN_PROGRAM,
    token: { mint: MINTS[i % 3], owner: OWNER, amount: BigInt(i + 1), delegate: i % 3 === 0 ? DELEGATE : null, state: 'initialized', tlv: null },
  }));
// 9 holders of HOLDER_MINT with tied balances, and balances whose text order is not their numeric order
const holderAmounts = [1, 1, 9, 2, 2, 10, 10, 100, 3];
const holders = holderAmounts.map((amount, i) =>
  account(300 + i, { owner: TOKEN_PROGRAM, token: { mint: HOLDER_MINT, owner: synth(`paging:holder:${i}`), amount: BigInt(amount), delegate: null, state: 'initialized', tlv: null } }));
// 7 more mints held by OWNER (token balances paging)
const extraMints = Array.from({ length: 7 }, (_, i) => synth(`paging:extra-mint:${i}`));
const balanceRows = extraMints.map((mint, i) =>
  account(400 + i, { owner: TOKEN_PROGRAM, token: { mint, owner: OWNER, amount: 10n, delegate: null, state: 'initialized', tlv: null } }));
const spent = [plain[4], plain[9], plain[17], tokens[1], tokens[8], holders[2]];
// 12 transactions over 4 slots (ties), linked to OWNER's accounts
const txs = Array.from({ length: 12 }, (_, i) => ({ signature: synthSig(`paging:tx:${i}`), slot: 50 + (i % 4), blockTime: 7, usesCompression: true, error: i === 5 ? 'InstructionError' : null }));

beforeAll(async () => {
  t = await createTestDb();
  await t.db.tx((q) => writeZk(q, {
    ...emptyZkWrite(),
    accounts: [...plain, ...others, ...tokens, ...holders, ...balanceRows],
    spends: spent.map((a) => ({ hash: a.hash, nullifier: null, txHash: null, nullifierQueueIndex: null })),
    transactions: [...txs, { signature: synthSig('paging:non-compression'), slot: 52, blockTime: 7, usesCompression: false, error: null }],
    accountTransactions: txs.map((tx, i) => ({ hash: (i % 2 ? plain[i] : tokens[i]).hash, signature: tx.signature, slot: tx.slot, opened: true, closed: false })),
  }));
});
afterAll(async () => t?.drop());

/** Walks a list with `limit` per page; returns every item and checks the last cursor is null. */
async function walk<T>(limit: number, page: (cursor: string | null) => Promise<ZkPage<T>>): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | null = null;
  for (let n = 0; n < 100; n++) {
    const p = await page(cursor);
    expect(p.items.length).toBeLessThanOrEqual(limit);
    out.push(...p.items);
    if (p.cursor === null) {
      return out;
    }
    expect(p.items.length).toBe(limit);
    cursor = p.cursor;
  }
  throw new Error('paging did not end');
}

describe('keyset paging walks every row once, in order', () => {
  it('accounts by owner: leaf index, then hash asc', async () => {
    const byLeaf = (rows: ZkAccountRow[]) => rows.sort((a, b) => a.leafIndex - b.leafIndex || cmp(a.hash, b.hash)).map((a) => a.hash);
    const want = byLeaf(plain.filter((a) => !spent.includes(a)));
    for (const limit of [1, 4, 5, 20, 1000]) {
      const got = await walk(limit, (cursor) => getAccountsByOwner(t.db, OWNER, { cursor, limit }));
      expect(got.map((a) => a.hash), `limit ${limit}`).toEqual(want);
    }
    const filtered = await walk(2, (cursor) => getAccountsByOwner(t.db, OWNER, { cursor, limit: 2, filters: [{ offset: 0, bytes: synthBytes('paging:data:1', 16).subarray(0, 4) }] }));
    expect(filtered.map((a) => a.hash)).toEqual(byLeaf(plain.filter((a, i) => i % 3 === 1 && !spent.includes(a))));
  });

  it('token accounts by owner and by delegate: (mint, hash) asc, with and without a mint filter', async () => {
    const live = tokens.filter((a) => !spent.includes(a));
    const order = (rows: ZkAccountRow[]) => rows.sort((a, b) => cmp(a.token!.mint, b.token!.mint) || cmp(a.hash, b.hash)).map((a) => a.hash);
    const ownerRows = [...live, ...balanceRows];
    for (const limit of [1, 3, 4, 1000]) {
      expect((await walk(limit, (cursor) => getTokenAccounts(t.db, 'owner', OWNER, { cursor, limit }))).map((i) => i.account.hash), `limit ${limit}`).toEqual(order([...ownerRows]));
      for (const mint of MINTS) {
        const got = await walk(limit, (cursor) => getTokenAccounts(t.db, 'owner', OWNER, { cursor, limit, mint }));
        expect(got.map((i) => i.account.hash)).toEqual(order(live.filter((a) => a.token!.mint === mint)));
      }
      const del = await walk(limit, (cursor) => getTokenAccounts(t.db, 'delegate', DELEGATE, { cursor, limit }));
      expect(del.map((i) => i.account.hash)).toEqual(order(live.filter((a) => a.token!.delegate === DELEGATE)));
    }
  });

  it('token balances by owner: mint asc', async () => {
    const sums = new Map<string, bigint>();
    for (const a of [...tokens, ...balanceRows]) if (!spent.includes(a)) sums.set(a.token!.mint, (sums.get(a.token!.mint) ?? 0n) + a.token!.amount);
    const want = [...sums.entries()].sort((a, b) => cmp(a[0], b[0])).map(([mint, balance]) => ({ mint, balance }));
    expect(want.length).toBe(10);
    for (const limit of [1, 3, 5, 10, 1000]) {
      expect(await walk(limit, (cursor) => getTokenBalancesByOwner(t.db, OWNER, { cursor, limit })), `limit ${limit}`).toEqual(want);
    }
    expect((await getTokenBalancesByOwner(t.db, OWNER, { limit: 10, mint: MINTS[2] })).items).toEqual([{ mint: MINTS[2], balance: sums.get(MINTS[2]) }]);
  });

  it('mint token holders: balance desc, owner desc (ties broken by owner bytes)', async () => {
    // a holder whose only account was spent keeps a row with balance 0 (listed last), as Photon's rows do
    const rows = new Map<string, bigint>();
    for (const a of [...holders, ...tokens]) {
      if (a.token!.mint === HOLDER_MINT) rows.set(a.token!.owner, (rows.get(a.token!.owner) ?? 0n) + (spent.includes(a) ? 0n : a.token!.amount));
    }
    expect([...rows.values()]).toContain(0n);
    const want = [...rows.entries()].map(([owner, balance]) => ({ owner, balance })).sort((a, b) => (a.balance === b.balance ? -cmp(a.owner, b.owner) : a.balance > b.balance ? -1 : 1));
    for (const limit of [1, 2, 3, 1000]) {
      expect(await walk(limit, (cursor) => getMintTokenHolders(t.db, HOLDER_MINT, { cursor, limit })), `limit ${limit}`).toEqual(want);
    }
  });

  it('signature lists: slot desc, signature bytes desc', async () => {
    const linked = txs.filter((_, i) => (i % 2 ? plain[i] : tokens[i]).owner === OWNER);
    const order = (xs: typeof txs) => [...xs].sort((a, b) => b.slot - a.slot || -cmp(a.signature, b.signature)).map((x) => x.signature);
    for (const limit of [1, 2, 5, 1000]) {
      const byOwner = await walk(limit, (cursor) => getSignaturesFor(t.db, 'owner', OWNER, { cursor, limit }));
      expect(byOwner.map((s) => s.signature), `limit ${limit}`).toEqual(order(linked));
      const byTokenOwner = await walk(limit, (cursor) => getSignaturesFor(t.db, 'tokenOwner', OWNER, { cursor, limit }));
      expect(byTokenOwner.map((s) => s.signature)).toEqual(order(txs.filter((_, i) => i % 2 === 0)));
      const latest = await walk(limit, (cursor) => getLatestSignatures(t.db, { cursor, limit, onlyCompression: true }));
      expect(latest.map((s) => s.signature)).toEqual(order(txs));
      const all = await walk(limit, (cursor) => getLatestSignatures(t.db, { cursor, limit, onlyCompression: false }));
      expect(all.length).toBe(txs.length + 1);
    }
    const withError = (await getLatestSignatures(t.db, { limit: 1000, onlyCompression: true })).items.find((s) => s.signature === txs[5].signature);
    expect(withError).toEqual({ signature: txs[5].signature, slot: txs[5].slot, blockTime: 7, error: 'InstructionError' });
  });
});

describe("Photon's recorded signature orders (real signatures, all at slot 0)", () => {
  const lists = {
    payer: snapshot('integration_tests__e2e_tests__payer-lamport_transfers-signatures.snap').value.items,
    latest: snapshot('integration_tests__e2e_tests__e2e_mint_and_transfer_transactions-latest-signatures.snap'),
    bobToken: snapshot('integration_tests__e2e_tests__e2e_mint_and_transfer_transactions-bob-token-signatures.snap'),
  } as Record<string, { signature: string; slot: number; blockTime: number }[]>;

  it('payer (owner list), latest compression and bob (token owner list) come back in the recorded order', async () => {
    const db = (await createTestDb());
    try {
      const payer = synth('recorded:payer');
      const bob = synth('recorded:bob');
      const mk = (label: string, owner: string, token: boolean) => account(900 + label.length, { hash: synth(`recorded:${label}`), owner: token ? TOKEN_PROGRAM : owner, token: token ? { mint: MINTS[0], owner, amount: 1n, delegate: null, state: 'initialized', tlv: null } : null });
      const a = mk('payer-account', payer, false);
      const b = mk('bob-token-account', bob, true);
      // written in reverse of the recorded order, at slot 0 with block time 0 as Photon's tests index them
      const w = emptyZkWrite();
      w.accounts.push(a, b);
      for (const s of [...lists.payer].reverse()) {
        w.transactions.push({ signature: s.signature, slot: 0, blockTime: 0, usesCompression: true, error: null });
        w.accountTransactions.push({ hash: a.hash, signature: s.signature, slot: 0, opened: true, closed: false });
      }
      for (const s of [...lists.bobToken].reverse()) {
        w.transactions.push({ signature: s.signature, slot: 0, blockTime: 0, usesCompression: true, error: null });
        w.accountTransactions.push({ hash: b.hash, signature: s.signature, slot: 0, opened: true, closed: false });
      }
      await db.db.tx((q) => writeZk(q, w));
      const wire = (p: ZkPage<{ signature: string; slot: number; blockTime: number | null }>) => p.items.map((s) => ({ signature: s.signature, slot: s.slot, blockTime: s.blockTime }));
      expect(wire(await getSignaturesFor(db.db, 'owner', payer, { limit: 1000 }))).toEqual(lists.payer);
      expect(wire(await getSignaturesFor(db.db, 'tokenOwner', bob, { limit: 1000 }))).toEqual(lists.bobToken);
      // latest-signatures was recorded with limit 1 and followed page by page
      const latest = await walk(1, (cursor) => getLatestSignatures(db.db, { cursor, limit: 1, onlyCompression: true }));
      expect(latest.filter((s) => lists.latest.some((l) => l.signature === s.signature)).map((s) => ({ signature: s.signature, slot: s.slot, blockTime: s.blockTime }))).toEqual(lists.latest);
    } finally {
      await db.drop();
    }
  });
});

describe('cursor layouts and errors', () => {
  const err = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      return e instanceof SolgateError ? [e.code, e.message] : ['other', String(e)];
    }
    return null;
  };
  it("wrong lengths give Photon's message; non-base58 text is a params error (typed fields) or a validation error (signature cursors)", () => {
    expect(err(() => decodeTokenAccountCursor(b58of(32)))).toEqual(['INVALID_ARGUMENT', 'Invalid cursor length. Expected 64. Received 32.']);
    expect(err(() => decodeMintCursor(b58of(64)))).toEqual(['INVALID_ARGUMENT', 'Invalid cursor length. Expected 32. Received 64.']);
    expect(err(() => decodeHolderCursor(b58of(32)))).toEqual(['INVALID_ARGUMENT', 'Invalid cursor length. Expected 40. Received 32.']);
    expect(err(() => decodeSignatureCursor(b58of(64)))).toEqual(['INVALID_ARGUMENT', 'Invalid cursor length. Expected 72. Received 64.']);
    expect(err(() => decodeSignatureCursor('0OIl'))).toEqual(['INVALID_ARGUMENT', 'Invalid cursor 0OIl']);
    expect(err(() => decodeTokenAccountCursor('0OIl'))?.[0]).toBe('INVALID_PARAMS');
    expect(err(() => decodeHashCursor(b58of(31)))?.[0]).toBe('INVALID_PARAMS');
    const h = decodeHolderCursor(b58of(40, 7));
    expect(h.balance).toBe(0x0707070707070707n);
    expect(h.owner.length).toBe(32);
  });
});
