/**
 * u64 values above 2^53 on the wire: Photon (Rust/serde) writes lamports, token amounts, balances and
 * discriminators as plain JSON integers with every digit, and so must the gateway (not as decimal strings, not
 * rounded). SYNTHETIC accounts with u64::MAX / 2^53 + 1 values are seeded through the ZK store and read back over
 * HTTP; the raw response text is checked, since `JSON.parse` would round the numbers. Values that fit in a double
 * stay ordinary JSON numbers. Also: the dispatcher's serializer on its own, and Light's stateless.js reading the
 * large values back exactly from a listening gateway.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { PublicKey } from '@solana/web3.js';
import { bn, createRpc } from '@lightprotocol/stateless.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { stringifyRpc } from '../../src/api/wire/json.js';
import { base58ToBytes } from '../../src/core/encoding.js';
import type { ZkAccountRow } from '../../src/store/zk/types.js';
import { queueOf, seedTrees, SMT1, synth, synthField, txWrite, synthSig, write } from './seed.js';

const U64_MAX = 18446744073709551615n;
const ABOVE_2_53 = 9007199254740993n; // 2^53 + 1: the first integer a double cannot hold
const OWNER = synth('big:owner'); // owner of the big-lamport account
const TOKEN_OWNER = synth('big:token-owner');
const SMALL_OWNER = synth('big:small-owner');
const MINT = synth('big:mint');
const LIGHT_TOKEN_PROGRAM = 'cTokenmWW8bLPjZEBAUgYy3zKxQZW6VKi7bqNFEVv3m';

function account(label: string, o: Partial<ZkAccountRow>): ZkAccountRow {
  return {
    hash: synthField(`big:hash:${label}`), address: null, owner: OWNER, lamports: 1n, data: null, tree: SMT1, queue: queueOf(SMT1),
    treeType: 1, leafIndex: 0, seq: 1, slotCreated: 3, inOutputQueue: false, token: null, ...o,
  };
}

const big = account('big', {
  lamports: U64_MAX,
  leafIndex: 0,
  data: { discriminator: U64_MAX - 1n, data: Uint8Array.from([1, 2, 3]), dataHash: synthField('big:data-hash') },
});
const bigToken = account('big-token', {
  owner: LIGHT_TOKEN_PROGRAM,
  lamports: ABOVE_2_53,
  leafIndex: 1,
  token: { mint: MINT, owner: TOKEN_OWNER, amount: U64_MAX, delegate: null, state: 'initialized', tlv: null },
});
const small = account('small', {
  owner: SMALL_OWNER,
  lamports: 5n,
  leafIndex: 2,
  data: { discriminator: 7n, data: Uint8Array.from([9]), dataHash: synthField('big:small-data-hash') },
});
const edge = account('edge', { owner: synth('big:edge-owner'), lamports: BigInt(Number.MAX_SAFE_INTEGER), leafIndex: 3 });

let ta: TestApp;
beforeAll(async () => {
  ta = await createTestApp();
  await seedTrees(ta.t.db, 4);
  await write(ta.t.db, { accounts: [big, bigToken, small, edge], ...txWrite(synthSig('big:tx'), 3, [big.hash, bigToken.hash, small.hash, edge.hash], []) });
});
afterAll(async () => ta?.close());

/** One JSON-RPC call over HTTP; the raw body and its content type. */
async function raw(method: string, params: unknown): Promise<{ body: string; type: string | undefined }> {
  const r = await ta.app.inject({ method: 'POST', url: `/?api-key=${ta.key}`, payload: { jsonrpc: '2.0', id: 1, method, params } });
  expect(r.statusCode, r.body).toBe(200);
  expect(r.body).not.toContain('"error"');
  return { body: r.body, type: r.headers['content-type'] as string | undefined };
}

describe('u64 above 2^53 over HTTP: bare JSON integers with exact digits', () => {
  it('getCompressedAccount (V1) and getCompressedAccountV2: lamports and discriminator', async () => {
    for (const m of ['getCompressedAccount', 'getCompressedAccountV2']) {
      const { body, type } = await raw(m, { hash: big.hash });
      expect(type).toMatch(/^application\/json/);
      expect(body, m).toContain('"lamports":18446744073709551615,');
      expect(body, m).toContain('"discriminator":18446744073709551614,');
      expect(body, m).not.toContain('"18446744073709551615"');
    }
  });
  it('getCompressedBalance (alias) / getCompressedAccountBalance and getCompressedBalanceByOwner: the value', async () => {
    for (const m of ['getCompressedBalance', 'getCompressedAccountBalance']) expect((await raw(m, { hash: big.hash })).body, m).toContain('"value":18446744073709551615}');
    expect((await raw('getCompressedBalanceByOwner', { owner: OWNER })).body).toContain('"value":18446744073709551615}');
  });
  it('getCompressedTokenAccountsByOwner (V1 and V2): token amount and the account lamports', async () => {
    for (const m of ['getCompressedTokenAccountsByOwner', 'getCompressedTokenAccountsByOwnerV2']) {
      const { body } = await raw(m, { owner: TOKEN_OWNER });
      expect(body, m).toContain('"amount":18446744073709551615,');
      expect(body, m).toContain('"lamports":9007199254740993,');
    }
  });
  it('getCompressedTokenAccountBalance, token balances by owner (V1 and V2), mint token holders', async () => {
    expect((await raw('getCompressedTokenAccountBalance', { hash: bigToken.hash })).body).toContain('"value":{"amount":18446744073709551615}');
    expect((await raw('getCompressedTokenBalancesByOwner', { owner: TOKEN_OWNER })).body).toContain(`"token_balances":[{"mint":"${MINT}","balance":18446744073709551615}]`);
    expect((await raw('getCompressedTokenBalancesByOwnerV2', { owner: TOKEN_OWNER })).body).toContain(`"items":[{"mint":"${MINT}","balance":18446744073709551615}]`);
    expect((await raw('getCompressedMintTokenHolders', { mint: MINT })).body).toContain(`"items":[{"owner":"${TOKEN_OWNER}","balance":18446744073709551615}]`);
  });
  it('lists and batches: getMultipleCompressedAccounts, getCompressedAccountsByOwner, a JSON-RPC batch', async () => {
    const multi = (await raw('getMultipleCompressedAccounts', { hashes: [big.hash, small.hash] })).body;
    expect(multi).toContain('"lamports":18446744073709551615,');
    expect(multi).toContain('"lamports":5,');
    expect((await raw('getCompressedAccountsByOwner', { owner: OWNER })).body).toContain('"lamports":18446744073709551615,');
    const r = await ta.app.inject({
      method: 'POST',
      url: `/?api-key=${ta.key}`,
      payload: [
        { jsonrpc: '2.0', id: 1, method: 'getCompressedBalance', params: { hash: big.hash } },
        { jsonrpc: '2.0', id: 2, method: 'getCompressedBalance', params: { hash: small.hash } },
        { jsonrpc: '2.0', id: 3, method: 'noSuchMethod', params: {} },
      ],
    });
    expect(r.body).toBe(
      '[{"jsonrpc":"2.0","result":{"context":{"slot":4},"value":18446744073709551615},"id":1},' +
        '{"jsonrpc":"2.0","result":{"context":{"slot":4},"value":5},"id":2},' +
        `${JSON.stringify((r.json() as unknown[])[2])}]`,
    );
    expect((r.json() as { error?: { code: number } }[])[2].error?.code).toBe(-32601);
  });
  it('values that fit a double stay ordinary JSON numbers (2^53 - 1, small lamports and discriminators)', async () => {
    const s = JSON.parse((await raw('getCompressedAccount', { hash: small.hash })).body).result.value;
    expect(s.lamports).toBe(5);
    expect(s.data.discriminator).toBe(7);
    const e = JSON.parse((await raw('getCompressedAccount', { hash: edge.hash })).body).result.value;
    expect(e.lamports).toBe(Number.MAX_SAFE_INTEGER);
    expect((await raw('getCompressedAccount', { hash: edge.hash })).body).toContain(`"lamports":${Number.MAX_SAFE_INTEGER},`);
  });
  it('Light stateless.js (which parses large integers losslessly) reads the exact values from a listening gateway', async () => {
    await ta.app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(ta.app.server.address() as AddressInfo).port}/?api-key=${ta.key}`;
    const rpc = createRpc(url, url, url);
    const acct = await rpc.getCompressedAccount(undefined, bn(base58ToBytes(big.hash)));
    expect(acct?.lamports.toString()).toBe(U64_MAX.toString());
    const tokens = await rpc.getCompressedTokenAccountsByOwner(new PublicKey(TOKEN_OWNER));
    expect(tokens.items.map((t) => [t.parsed.amount.toString(), t.compressedAccount.lamports.toString()])).toEqual([[U64_MAX.toString(), ABOVE_2_53.toString()]]);
    expect((await rpc.getCompressedBalanceByOwner(new PublicKey(OWNER))).toString()).toBe(U64_MAX.toString());
  });
});

describe('stringifyRpc (the JSON-RPC reply serializer)', () => {
  it('is JSON.stringify when there is no bigint', () => {
    const v = { a: 1, b: 'x', c: [null, true, 2.5], d: undefined, e: new Date(0), f: { g: -3 } };
    expect(stringifyRpc(v)).toBe(JSON.stringify(v));
  });
  it('writes bigints as bare integers anywhere (nested, in arrays, negative, at the top), strings untouched', () => {
    expect(stringifyRpc({ a: U64_MAX, b: [1n, -ABOVE_2_53, { c: 0n }], s: '18446744073709551615', u: undefined })).toBe(
      '{"a":18446744073709551615,"b":[1,-9007199254740993,{"c":0}],"s":"18446744073709551615"}',
    );
    expect(stringifyRpc(U64_MAX)).toBe('18446744073709551615');
    // strings that look like what the serializer uses internally stay strings
    const tricky = { a: '@solgate-bigint-:5', b: '"5"', c: 2n };
    expect(JSON.parse(stringifyRpc(tricky))).toEqual({ a: '@solgate-bigint-:5', b: '"5"', c: 2 });
  });
  it('still throws on a cycle', () => {
    const cyc: Record<string, unknown> = { n: 1n };
    cyc.self = cyc;
    expect(() => stringifyRpc(cyc)).toThrow(TypeError);
  });
});
