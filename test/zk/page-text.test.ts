/**
 * The pages written as text (src/api/zk/page-text.ts, through `zk_token_accounts_page` / `zk_owner_accounts_page`)
 * are the same bytes as the answers built from objects (the store's `getTokenAccounts` / `getAccountsByOwner` with the
 * slot read beside them, accountV1/accountV2/tokenData, written by `stringifyRpc`: the methods' earlier form, kept
 * here as the reference): token accounts by owner and delegate
 * with and without a mint, accounts by owner with and without memcmp filters and a data slice, V1 and V2, every
 * limit, walked page by page with the cursors, empty pages and a cursor naming no account, and rows with every
 * optional value absent and present (address, data with and without bytes, delegate, tlv empty and not, frozen, V2
 * accounts still queued with no seq, u64 values above 2^53). The rows are SYNTHETIC.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiDeps } from '../../src/api/deps.js';
import { indexedSlot, withContext } from '../../src/api/zk/context.js';
import { OWNER_ACCOUNTS_PARAMS, TOKEN_ACCOUNTS_PARAMS, ownerAccountsAnswer, tokenAccountsAnswer } from '../../src/api/zk/lists.js';
import { tokenAccountCursor } from '../../src/api/zk/cursors.js';
import { parseDataSlice, parseFilters } from '../../src/api/zk/filters.js';
import { limit, optionalHash, optionalPubkey, pubkey, required, schemaParams } from '../../src/api/zk/params.js';
import { getAccountsByOwner, getTokenAccounts } from '../../src/store/zk/accounts.js';
import { accountV1, accountV2, tokenData } from '../../src/api/zk/serialize.js';
import { RawJson, stringifyRpc } from '../../src/api/wire/json.js';
import type { ZkAccountRow } from '../../src/store/zk/types.js';
import { createTestDb, type TestDb } from '../helpers/db.js';
import { BMT1, OQ1, seedTrees, SMT1, synth, tokenRowCopies, write } from './seed.js';
import { bytesToBase58 } from '../../src/core/encoding.js';

const OWNER = synth('page-text:owner');
const OTHER = synth('page-text:other');
const DELEGATE = synth('page-text:delegate');
const MINTS = [0, 1, 2].map((i) => synth(`page-text:mint:${i}`));
const U64_MAX = 18446744073709551615n;
const PROGRAM = synth('page-text:program');
const OTHER_PROGRAM = synth('page-text:other-program');

function row(i: number): ZkAccountRow {
  const v2 = i % 4 === 3;
  return {
    hash: synth(`page-text:hash:${i}`),
    address: i % 5 === 0 ? synth(`page-text:address:${i}`) : null,
    owner: i < 18 ? PROGRAM : OTHER_PROGRAM,
    lamports: i === 7 ? U64_MAX : BigInt(i * 1000),
    data:
      i % 3 === 0
        ? null
        : { discriminator: i === 8 ? U64_MAX - 1n : BigInt(i), data: i % 3 === 1 ? Uint8Array.from({ length: 60 + i }, (_, k) => (k * 7 + i) & 255) : new Uint8Array(), dataHash: synth(`page-text:dh:${i}`) },
    tree: v2 ? BMT1 : SMT1,
    queue: v2 ? OQ1 : 'nfq1NvQDJ2GEgnS8zt9prAe8rjjpAW1zFkrvZoBR148',
    treeType: v2 ? 3 : 1,
    leafIndex: 100 + i,
    seq: v2 ? null : 200 + i,
    slotCreated: 50 + i,
    inOutputQueue: v2,
    token: {
      mint: MINTS[i % 3],
      owner: i % 6 === 5 ? OTHER : OWNER,
      amount: i === 4 ? U64_MAX : i === 9 ? 2n ** 53n + 1n : BigInt(i * 10),
      delegate: i % 2 === 0 ? DELEGATE : null,
      state: i % 7 === 2 ? 'frozen' : 'initialized',
      tlv: i % 4 === 1 ? Uint8Array.from({ length: 70 }, (_, k) => k) : i % 4 === 2 ? new Uint8Array() : null,
    },
  };
}

let t: TestDb;
let deps: ApiDeps;
beforeAll(async () => {
  t = await createTestDb();
  deps = { db: t.db } as ApiDeps;
  await seedTrees(t.db, 9_007_199_254);
  // 24 token accounts, and 6 accounts of PROGRAM without token data
  const plain = Array.from({ length: 6 }, (_, i) => ({ ...row(30 + i), token: null, leafIndex: 3 * i }));
  await write(t.db, { accounts: [...Array.from({ length: 24 }, (_, i) => row(i)), ...plain] });
}, 60_000);
afterAll(async () => t?.drop());

/** The page as objects, the methods' earlier form: the same parameters parsed, the store's object reader. */
async function tokenAccountsPage(params: unknown, by: 'owner' | 'delegate') {
  const p = schemaParams(params, TOKEN_ACCOUNTS_PARAMS[by]);
  const key = pubkey(required(p, by), by);
  return getTokenAccounts(deps.db, by, key, { mint: optionalPubkey(p.mint, 'mint'), cursor: tokenAccountCursor(p.cursor), limit: limit(p.limit) });
}

async function ownerAccountsPage(params: unknown) {
  const p = schemaParams(params, OWNER_ACCOUNTS_PARAMS);
  const owner = pubkey(required(p, 'owner'), 'owner');
  return getAccountsByOwner(deps.db, owner, { cursor: optionalHash(p.cursor, 'cursor'), limit: limit(p.limit), filters: parseFilters(p.filters), dataSlice: parseDataSlice(p.dataSlice) });
}

/** The answer as the methods wrote it before: objects (the slot read beside the rows, or after an empty page), then stringifyRpc. */
async function fromObjects(params: Record<string, unknown>, by: 'owner' | 'delegate', version: 'v1' | 'v2'): Promise<string> {
  const account = version === 'v1' ? accountV1 : accountV2;
  const p = await tokenAccountsPage(params, by);
  const slot = p.slot !== undefined ? (p.slot ?? 0) : await indexedSlot(deps);
  const result = {
    context: { slot },
    value: { items: p.items.map((x) => ({ account: account(x.account), tokenData: tokenData(x.token) })), cursor: p.cursor },
  };
  return stringifyRpc({ jsonrpc: '2.0', result, id: 1 });
}

async function ownerFromObjects(params: Record<string, unknown>, version: 'v1' | 'v2'): Promise<string> {
  const account = version === 'v1' ? accountV1 : accountV2;
  const result = await withContext(deps, ownerAccountsPage(params).then((p) => ({ items: p.items.map((a) => account(a)), cursor: p.cursor })));
  return stringifyRpc({ jsonrpc: '2.0', result, id: 1 });
}

const ownerAsText = async (params: Record<string, unknown>, version: 'v1' | 'v2') =>
  stringifyRpc({ jsonrpc: '2.0', result: await ownerAccountsAnswer(deps, params, version), id: 1 });

const asText = async (params: Record<string, unknown>, by: 'owner' | 'delegate', version: 'v1' | 'v2') =>
  stringifyRpc({ jsonrpc: '2.0', result: await tokenAccountsAnswer(deps, params, by, version), id: 1 });

describe('token-account pages as text', () => {
  it('are the bytes of the object answers, page by page', async () => {
    let pages = 0;
    for (const by of ['owner', 'delegate'] as const) {
      const holders = by === 'owner' ? [OWNER, OTHER, synth('page-text:nobody')] : [DELEGATE, OWNER];
      for (const holder of holders)
        for (const version of ['v1', 'v2'] as const)
          for (const mint of [undefined, MINTS[1], synth('page-text:no-mint')])
            for (const limit of [undefined, 1, 2, 5, 1000]) {
              let cursor: string | null | undefined;
              let items = 0;
              do {
                const params = { [by]: holder, ...(mint ? { mint } : {}), ...(limit ? { limit } : {}), ...(cursor ? { cursor } : {}) };
                const want = await fromObjects(params, by, version);
                expect(await asText(params, by, version), JSON.stringify(params)).toBe(want);
                const value = (JSON.parse(want) as { result: { value: { items: unknown[]; cursor: string | null } } }).result.value;
                cursor = value.cursor;
                items += value.items.length;
                pages++;
              } while (cursor);
              if (holder === OWNER && !mint && by === 'owner') expect(items).toBe(20);
            }
    }
    expect(pages).toBeGreaterThan(100);
  });

  it('are the bytes of the object answers for accounts by owner, filtered, sliced, page by page', async () => {
    const data1 = row(1).data!.data;
    const filterSets = [
      undefined,
      [{ memcmp: { offset: 0, bytes: bytesToBase58(data1.subarray(0, 3)) } }],
      [{ memcmp: { offset: 2, bytes: bytesToBase58(data1.subarray(2, 6)) } }, { memcmp: { offset: 0, bytes: bytesToBase58(data1.subarray(0, 1)) } }],
      [{ memcmp: { offset: 500, bytes: bytesToBase58(Uint8Array.of(1)) } }],
    ];
    let pages = 0;
    for (const owner of [PROGRAM, OTHER_PROGRAM, synth('page-text:nobody')])
      for (const version of ['v1', 'v2'] as const)
        for (const filters of filterSets)
          for (const dataSlice of [undefined, { offset: 0, length: 0 }, { offset: 3, length: 5 }, { offset: 90, length: 10 }])
            for (const limit of [undefined, 1, 4, 1000]) {
              let cursor: string | null | undefined;
              do {
                const params = { owner, ...(filters ? { filters } : {}), ...(dataSlice ? { dataSlice } : {}), ...(limit ? { limit } : {}), ...(cursor ? { cursor } : {}) };
                const want = await ownerFromObjects(params, version);
                expect(await ownerAsText(params, version), JSON.stringify(params)).toBe(want);
                cursor = (JSON.parse(want) as { result: { value: { cursor: string | null } } }).result.value.cursor;
                pages++;
              } while (cursor);
            }
    // a cursor naming no stored account: an empty page
    const params = { owner: PROGRAM, cursor: synth('page-text:no-account') };
    expect(await ownerAsText(params, 'v1')).toBe(await ownerFromObjects(params, 'v1'));
    expect(await ownerAsText(params, 'v1')).toContain('"items":[],"cursor":null');
    expect(pages).toBeGreaterThan(300);
  });

  it('write u64 values above 2^53 with all their digits', async () => {
    const text = await asText({ owner: OWNER }, 'owner', 'v1');
    expect(text).toContain(`"lamports":${U64_MAX}`);
    expect(text).toContain(`"amount":${U64_MAX}`);
    expect(text).toContain(`"discriminator":${U64_MAX - 1n}`);
    expect(text).toContain(`"amount":${2n ** 53n + 1n}`);
    expect(text).toContain('"context":{"slot":9007199254}');
  });

  // Last: it changes the accounts. A token row carries a copy of its account's fields (migration 045), which the page
  // reads; the one that changes after creation, a V2 account's place in the output queue, must follow the account.
  it('follow a V2 account out of the output queue, whichever of event and account came first', async () => {
    const event = (seq: number, kind: 'append' | 'nullify', lo: number, hi: number) => ({ tree: BMT1, kind, seq, oldNextIndex: lo, newNextIndex: hi, slot: 60, signature: null });
    const queued = async () => {
      const { queued: n, bad } = await tokenRowCopies(t.db);
      return { n, bad };
    };
    const samePages = async () => {
      for (const params of [{ owner: OWNER }, { owner: OTHER }, { delegate: DELEGATE }]) {
        const by = 'owner' in params ? 'owner' : 'delegate';
        expect(await asText(params, by, 'v2')).toBe(await fromObjects(params, by, 'v2'));
      }
    };
    // the V2 token accounts are rows 3, 7, 11, 15, 19, 23 at leaf indexes 103 … 123, all still queued
    expect(await queued()).toEqual({ n: 6, bad: 0 });
    await write(t.db, { batchEvents: [event(1, 'append', 100, 112)] });
    expect(await queued()).toEqual({ n: 3, bad: 0 });
    await samePages();
    expect((await asText({ owner: OWNER }, 'owner', 'v2')).match(/"proveByIndex":true/g)).toHaveLength(2); // 15 and 19 (23 is OTHER's)

    // an append seen before its account: the account and its token row arrive out of the queue
    await write(t.db, { batchEvents: [event(2, 'append', 112, 140)] });
    await write(t.db, { accounts: [{ ...row(27), leafIndex: 130 }] });
    expect(await queued()).toEqual({ n: 0, bad: 0 });

    // a V2 spend puts the account in the input queue; the nullify takes it out of the output queue
    await write(t.db, { accounts: [{ ...row(47), leafIndex: 140 }] });
    expect(await queued()).toEqual({ n: 1, bad: 0 });
    await write(t.db, { spends: [{ hash: row(47).hash, nullifier: synth('page-text:nullifier'), txHash: synth('page-text:tx'), nullifierQueueIndex: 0 }] });
    await write(t.db, { batchEvents: [event(3, 'nullify', 0, 1)] });
    expect(await queued()).toEqual({ n: 0, bad: 0 });
    await samePages();
  });
});

describe('stringifyRpc of an answer whose result is text', () => {
  it('is the text JSON.stringify writes for it, whatever the id', () => {
    const raw = new RawJson('{"a":[1,{"b":null}],"c":"x"}');
    for (const id of [1, 0, -3, 2.5, 'abc', 'q"\\\u2028', null])
      expect(stringifyRpc({ jsonrpc: '2.0', result: raw, id })).toBe(JSON.stringify({ jsonrpc: '2.0', result: JSON.parse(raw.text), id }));
    // other shapes take the general path
    expect(stringifyRpc({ result: raw, jsonrpc: '2.0', id: 1 })).toBe('{"result":{"a":[1,{"b":null}],"c":"x"},"jsonrpc":"2.0","id":1}');
    expect(stringifyRpc({ jsonrpc: '2.0', result: raw, id: 1, extra: true })).toBe('{"jsonrpc":"2.0","result":{"a":[1,{"b":null}],"c":"x"},"id":1,"extra":true}');
  });
});
