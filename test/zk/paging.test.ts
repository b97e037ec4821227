/**
 * The ZK lists over HTTP with cursor walks: every list paged with a small limit gives the same items, in Photon's
 * order, as one big page; the cursor is the §3.4 byte layout of the last item and is null on a short page.
 * The data is SYNTHETIC (many accounts, mints, holders and signatures are needed to page).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base58ToBytes, bytesToBase64 } from '../../src/core/encoding.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import type { ZkAccountRow } from '../../src/store/zk/types.js';
import { callRpc } from './harness.js';
import { BMT1, OQ1, seedTrees, SMT1, synth, synthSig, txWrite, write } from './seed.js';

const OWNER = synth('paging:owner');
const DELEGATE = synth('paging:delegate');
const MINTS = [synth('paging:mint:a'), synth('paging:mint:b')];
const HOLDERS = Array.from({ length: 5 }, (_, i) => synth(`paging:holder:${i}`));
const cmpBytes = (a: string, b: string) => Buffer.compare(Buffer.from(base58ToBytes(a)), Buffer.from(base58ToBytes(b)));

function account(label: string, o: Partial<ZkAccountRow>): ZkAccountRow {
  return {
    hash: synth(`paging:hash:${label}`), address: null, owner: OWNER, lamports: 1n, data: null, tree: SMT1, queue: 'nfq1NvQDJ2GEgnS8zt9prAe8rjjpAW1zFkrvZoBR148',
    treeType: 1, leafIndex: 0, seq: 1, slotCreated: 10, inOutputQueue: false, token: null, ...o,
  };
}

const plain = Array.from({ length: 7 }, (_, i) =>
  account(`plain:${i}`, {
    lamports: BigInt(100 + i),
    leafIndex: i,
    data: { discriminator: BigInt(i % 2), data: Uint8Array.from([i % 2, 9, 9, i]), dataHash: synth(`paging:dh:${i}`) },
  }),
);
const queued = account('queued', { tree: BMT1, queue: OQ1, treeType: 3, leafIndex: 0, seq: null, inOutputQueue: true, lamports: 5n });
const tokens = Array.from({ length: 6 }, (_, i) =>
  account(`token:${i}`, {
    owner: 'cTokenmWW8bLPjZEBAUgYy3zKxQZW6VKi7bqNFEVv3m',
    leafIndex: 10 + i,
    token: { mint: MINTS[i % 2], owner: OWNER, amount: BigInt(10 * (i + 1)), delegate: i < 3 ? DELEGATE : null, state: i === 5 ? 'frozen' : 'initialized', tlv: i === 4 ? Uint8Array.from([1, 2, 3]) : null },
  }),
);
const holderAccounts = HOLDERS.map((h, i) =>
  account(`holder:${i}`, { owner: 'cTokenmWW8bLPjZEBAUgYy3zKxQZW6VKi7bqNFEVv3m', leafIndex: 20 + i, token: { mint: MINTS[0], owner: h, amount: BigInt([50, 20, 50, 7, 20][i]), delegate: null, state: 'initialized', tlv: null } }),
);
const SIGS = Array.from({ length: 9 }, (_, i) => ({ sig: synthSig(`paging:sig:${i}`), slot: [5, 5, 5, 6, 6, 7, 8, 8, 8][i] }));

let ta: TestApp;
beforeAll(async () => {
  ta = await createTestApp();
  await seedTrees(ta.t.db, 8);
  await write(ta.t.db, { accounts: [...plain, queued, ...tokens, ...holderAccounts] });
  for (const s of SIGS) await write(ta.t.db, txWrite(s.sig, s.slot, [], [], 1_700_000_000 + s.slot));
  // links: every signature touched one of the owner's plain accounts and (for the first five) a token account
  for (const [i, s] of SIGS.entries()) {
    await write(ta.t.db, {
      accountTransactions: [
        { hash: plain[i % plain.length].hash, signature: s.sig, slot: s.slot, opened: true, closed: false },
        ...(i < 5 ? [{ hash: tokens[i].hash, signature: s.sig, slot: s.slot, opened: true, closed: false }] : []),
      ],
      accounts: [plain[i % plain.length], ...(i < 5 ? [tokens[i]] : [])],
    });
  }
});
afterAll(async () => ta?.close());

async function walk(method: string, params: Record<string, unknown>, limit: number, listKey = 'items'): Promise<{ items: unknown[]; cursors: (string | null)[] }> {
  const items: unknown[] = [];
  const cursors: (string | null)[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 100; i++) {
    const r = await callRpc(ta, method, { ...params, limit, ...(cursor ? { cursor } : {}) });
    expect(r.error, `${method}: ${JSON.stringify(r.error)}`).toBeUndefined();
    const value = (r.result as { value: Record<string, unknown> }).value;
    const page = value[listKey] as unknown[];
    items.push(...page);
    cursor = value.cursor as string | null;
    cursors.push(cursor);
    if (page.length < limit) expect(cursor, `${method}: a short page has no cursor`).toBeNull();
    if (cursor === null) return { items, cursors };
  }
  throw new Error('no last page');
}

async function all(method: string, params: Record<string, unknown>, listKey = 'items'): Promise<unknown[]> {
  const r = await callRpc(ta, method, { ...params, limit: 1000 });
  return ((r.result as { value: Record<string, unknown[]> }).value[listKey]) as unknown[];
}

describe('cursor walks', () => {
  it('getCompressedAccountsByOwner(V2): leaf index then hash order (leaf 0 in two trees), cursor = last hash', async () => {
    for (const method of ['getCompressedAccountsByOwner', 'getCompressedAccountsByOwnerV2']) {
      const full = (await all(method, { owner: OWNER })) as { hash: string }[];
      expect(full.map((a) => a.hash)).toEqual([...plain, queued].sort((a, b) => a.leafIndex - b.leafIndex || cmpBytes(a.hash, b.hash)).map((a) => a.hash));
      for (const limit of [1, 2, 3, 8]) {
        const w = await walk(method, { owner: OWNER }, limit);
        expect(w.items, `${method} limit ${limit}`).toEqual(full);
        expect(w.cursors[0]).toBe(limit < full.length ? full[limit - 1].hash : limit === full.length ? full[limit - 1].hash : null);
      }
    }
    const v2 = (await all('getCompressedAccountsByOwnerV2', { owner: OWNER })) as { hash: string; proveByIndex: boolean; merkleContext: unknown; seq: number | null }[];
    const q = v2.find((a) => a.hash === queued.hash)!;
    expect(q).toMatchObject({ proveByIndex: true, seq: null, merkleContext: { treeType: 3, tree: BMT1, queue: OQ1, cpiContext: null, nextTreeContext: null } });
  });
  it('filters (memcmp) and dataSlice', async () => {
    const odd = (await all('getCompressedAccountsByOwner', { owner: OWNER, filters: [{ memcmp: { offset: 0, bytes: '2' } }] })) as { hash: string; data: { data: string } }[];
    expect(odd.map((a) => a.hash).sort()).toEqual(plain.filter((_, i) => i % 2 === 1).map((a) => a.hash).sort());
    const two = (await all('getCompressedAccountsByOwner', { owner: OWNER, filters: [{ memcmp: { offset: 0, bytes: '2' } }, { memcmp: { offset: 3, bytes: '4' } }] })) as { hash: string }[];
    expect(two.map((a) => a.hash)).toEqual([plain[3].hash]);
    const sliced = (await all('getCompressedAccountsByOwner', { owner: OWNER, filters: [{ memcmp: { offset: 3, bytes: '4' } }], dataSlice: { offset: 1, length: 2 } })) as { data: { data: string; discriminator: number } }[];
    expect(sliced[0].data).toMatchObject({ data: bytesToBase64(Uint8Array.from([9, 9])), discriminator: 1 });
    const w = await walk('getCompressedAccountsByOwner', { owner: OWNER, filters: [{ memcmp: { offset: 1, bytes: 'A' } }] }, 2);
    expect(w.items).toEqual(await all('getCompressedAccountsByOwner', { owner: OWNER, filters: [{ memcmp: { offset: 1, bytes: 'A' } }] }));
    expect(w.items).toHaveLength(7);
  });
  it('getCompressedTokenAccountsByOwner/Delegate(V2): (mint, hash) order, cursor = mint ‖ hash', async () => {
    const expectedOrder = [...tokens].sort((a, b) => cmpBytes(a.token!.mint, b.token!.mint) || cmpBytes(a.hash, b.hash)).map((t) => t.hash);
    for (const method of ['getCompressedTokenAccountsByOwner', 'getCompressedTokenAccountsByOwnerV2']) {
      const full = (await all(method, { owner: OWNER })) as { account: { hash: string }; tokenData: { mint: string } }[];
      expect(full.map((t) => t.account.hash)).toEqual(expectedOrder);
      const w = await walk(method, { owner: OWNER }, 4);
      expect(w.items).toEqual(full);
      const first = full[3];
      expect(Buffer.from(base58ToBytes(w.cursors[0]!)).toString('hex')).toBe(Buffer.from(base58ToBytes(first.tokenData.mint)).toString('hex') + Buffer.from(base58ToBytes(first.account.hash)).toString('hex'));
      const oneMint = (await all(method, { owner: OWNER, mint: MINTS[1] })) as { tokenData: { mint: string } }[];
      expect(oneMint.map((t) => t.tokenData.mint)).toEqual([MINTS[1], MINTS[1], MINTS[1]]);
      expect((await walk(method, { owner: OWNER, mint: MINTS[1] }, 2)).items).toEqual(oneMint);
    }
    for (const method of ['getCompressedTokenAccountsByDelegate', 'getCompressedTokenAccountsByDelegateV2']) {
      const w = await walk(method, { delegate: DELEGATE }, 2);
      expect((w.items as { account: { hash: string } }[]).map((t) => t.account.hash).sort()).toEqual(tokens.slice(0, 3).map((t) => t.hash).sort());
    }
    const frozen = ((await all('getCompressedTokenAccountsByOwner', { owner: OWNER })) as { account: { hash: string }; tokenData: Record<string, unknown> }[]).find((t) => t.account.hash === tokens[5].hash)!;
    expect(frozen.tokenData).toEqual({ mint: MINTS[1], owner: OWNER, amount: 60, delegate: null, state: 'frozen', tlv: null });
    const withTlv = ((await all('getCompressedTokenAccountsByOwner', { owner: OWNER })) as { account: { hash: string }; tokenData: Record<string, unknown> }[]).find((t) => t.account.hash === tokens[4].hash)!;
    expect(withTlv.tokenData.tlv).toBe(bytesToBase64(Uint8Array.from([1, 2, 3])));
  });
  it('getCompressedTokenBalancesByOwner (token_balances) and V2 (items): mint order, cursor = mint', async () => {
    const sums = MINTS.map((m) => tokens.filter((t) => t.token!.mint === m).reduce((s, t) => s + Number(t.token!.amount), 0));
    const expected = MINTS.map((mint, i) => ({ mint, balance: sums[i] })).sort((a, b) => cmpBytes(a.mint, b.mint));
    expect(await all('getCompressedTokenBalancesByOwner', { owner: OWNER }, 'token_balances')).toEqual(expected);
    const w1 = await walk('getCompressedTokenBalancesByOwner', { owner: OWNER }, 1, 'token_balances');
    expect(w1.items).toEqual(expected);
    expect(w1.cursors[0]).toBe(expected[0].mint);
    expect((await walk('getCompressedTokenBalancesByOwnerV2', { owner: OWNER }, 1)).items).toEqual(expected);
  });
  it('getCompressedMintTokenHolders: balance desc, owner desc, cursor = balance u64 LE ‖ owner', async () => {
    const holders = [...HOLDERS.map((owner, i) => ({ owner, balance: [50, 20, 50, 7, 20][i] })), ...[OWNER].map((owner) => ({ owner, balance: 10 + 30 + 50 }))];
    const expected = holders.sort((a, b) => b.balance - a.balance || -cmpBytes(a.owner, b.owner));
    const full = await all('getCompressedMintTokenHolders', { mint: MINTS[0] });
    expect(full).toEqual(expected);
    const w = await walk('getCompressedMintTokenHolders', { mint: MINTS[0] }, 2);
    expect(w.items).toEqual(expected);
    const c = Buffer.from(base58ToBytes(w.cursors[0]!));
    expect(c.readBigUInt64LE(0)).toBe(BigInt(expected[1].balance));
    expect(c.subarray(8).equals(Buffer.from(base58ToBytes(expected[1].owner)))).toBe(true);
  });
  it('signature lists: slot desc, signature bytes desc, cursor = slot u64 LE ‖ signature', async () => {
    const order = (sigs: typeof SIGS) => [...sigs].sort((a, b) => b.slot - a.slot || -cmpBytes(a.sig, b.sig)).map((s) => s.sig);
    const owner = (await all('getCompressionSignaturesForOwner', { owner: OWNER })) as { signature: string; slot: number; blockTime: number }[];
    expect(owner.map((s) => s.signature)).toEqual(order(SIGS));
    expect(owner[0]).toEqual({ signature: order(SIGS)[0], slot: 8, blockTime: 1_700_000_008 });
    const w = await walk('getCompressionSignaturesForOwner', { owner: OWNER }, 2);
    expect(w.items).toEqual(owner);
    const c = Buffer.from(base58ToBytes(w.cursors[0]!));
    expect(c.length).toBe(72);
    expect(c.readBigUInt64LE(0)).toBe(8n);
    expect((await walk('getCompressionSignaturesForTokenOwner', { owner: OWNER }, 2)).items.map((s) => (s as { signature: string }).signature)).toEqual(order(SIGS.slice(0, 5)));
    const latest = await walk('getLatestCompressionSignatures', {}, 4);
    expect(latest.items.map((s) => (s as { signature: string }).signature)).toEqual(order(SIGS));
    const nonVoting = await callRpc(ta, 'getLatestNonVotingSignatures', { limit: 3 });
    expect(nonVoting.result).toEqual({ context: { slot: 8 }, value: { items: (latest.items.slice(0, 3) as object[]).map((s) => ({ ...s, error: null })) } });
    expect((await callRpc(ta, 'getLatestNonVotingSignatures', undefined)).result).toMatchObject({ value: { items: expect.any(Array) } });
    const acct = await callRpc(ta, 'getCompressionSignaturesForAccount', { hash: plain[0].hash });
    expect(((acct.result as { value: { items: { signature: string }[] } }).value.items).map((s) => s.signature)).toEqual(order([SIGS[0], SIGS[7]]));
  });
  it('a page exactly `limit` long has a cursor, and the next page is empty', async () => {
    const r = await callRpc(ta, 'getCompressedTokenBalancesByOwner', { owner: OWNER, limit: 2 });
    const cursor = (r.result as { value: { cursor: string } }).value.cursor;
    expect(cursor).not.toBeNull();
    expect((await callRpc(ta, 'getCompressedTokenBalancesByOwner', { owner: OWNER, limit: 2, cursor })).result).toEqual({ context: { slot: 8 }, value: { token_balances: [], cursor: null } });
  });
});

describe('balances and multiple accounts', () => {
  it('getCompressedBalanceByOwner sums unspent lamports; getMultipleCompressedAccounts aligns, null where missing', async () => {
    const lamports = [...plain, queued].reduce((s, a) => s + Number(a.lamports), 0);
    expect((await callRpc(ta, 'getCompressedBalanceByOwner', { owner: OWNER })).result).toEqual({ context: { slot: 8 }, value: lamports });
    const r = await callRpc(ta, 'getMultipleCompressedAccounts', { hashes: [plain[1].hash, synth('missing'), plain[1].hash] });
    const items = (r.result as { value: { items: ({ hash: string } | null)[] } }).value.items;
    expect(items.map((a) => a?.hash ?? null)).toEqual([plain[1].hash, null, plain[1].hash]);
    const v2 = await callRpc(ta, 'getMultipleCompressedAccountsV2', { hashes: [queued.hash] });
    expect((v2.result as { value: { items: { proveByIndex: boolean }[] } }).value.items[0].proveByIndex).toBe(true);
  });
});

describe('the context slot of token-account pages', () => {
  it('is the indexed slot, read in the page statement when it has rows and on its own when it has none', async () => {
    await ta.t.db.query(`INSERT INTO ingest_checkpoint (id, slot) VALUES ('chain', 4242) ON CONFLICT (id) DO UPDATE SET slot = 4242`);
    const nobody = synth('paging:nobody');
    const calls: [string, Record<string, string>, boolean][] = [
      ['getCompressedTokenAccountsByOwner', { owner: OWNER }, true],
      ['getCompressedTokenAccountsByOwnerV2', { owner: OWNER }, true],
      ['getCompressedTokenAccountsByDelegate', { delegate: DELEGATE }, true],
      ['getCompressedTokenAccountsByDelegateV2', { delegate: DELEGATE }, true],
      ['getCompressedTokenAccountsByOwner', { owner: nobody }, false],
      ['getCompressedTokenAccountsByDelegateV2', { delegate: nobody }, false],
    ];
    for (const [method, params, some] of calls) {
      const r = await callRpc(ta, method, params);
      const res = r.result as { context: { slot: number }; value: { items: unknown[] } };
      expect(res.context.slot, method).toBe(4242);
      expect(res.value.items.length > 0, method).toBe(some);
    }
  });
});
