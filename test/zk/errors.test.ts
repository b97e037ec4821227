/**
 * ZK parameter errors: Photon's forms (compat-facts §3.5) — params that do not deserialize are -32602, application
 * failures -32000 with "Validation Error: …" / "Record Not Found: …" — and a hostile-params sweep over every ZK
 * method: each answers a result or a JSON-RPC error, never an internal error or a 5xx.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { RPC_METHODS } from '../../src/api/rpc/registry.js';
import { callRpc } from './harness.js';
import { seedBob } from './seeded-cases.js';
import { AMT1, AMT2, BMT1, BOB, MINT, SMT1, synth, synthField, synthSig } from './seed.js';

const JREC = 'JReC6h68m3EdCKP7S35e7BE4pBPwQz1HfjUkboeQy9r';
const SIG = '64jFxW4xxife8UqpEQyYdA589rzFKWx8rT4vun6soCpWXmDermr588UKX2261YYZ8ZSzcu2NUJY2aCfee64FvTW4';

let ta: TestApp;
beforeAll(async () => {
  ta = await createTestApp();
  await seedBob(ta);
});
afterAll(async () => ta?.close());

/** A valid request of every ZK method (the sweep replaces one member at a time). */
const VALID: Record<string, unknown> = {
  getAccountInterface: { address: BOB },
  getCompressedAccount: { hash: JREC },
  getCompressedAccountV2: { address: BOB },
  getCompressedAccountBalance: { hash: JREC },
  getCompressedBalance: { hash: JREC },
  getCompressedAccountProof: { hash: JREC },
  getCompressedAccountProofV2: { hash: JREC },
  getCompressedAccountsByOwner: { owner: BOB, filters: [{ memcmp: { offset: 0, bytes: MINT } }], dataSlice: { offset: 0, length: 8 }, cursor: JREC, limit: 10 },
  getCompressedAccountsByOwnerV2: { owner: BOB, filters: [], dataSlice: null, cursor: null, limit: 10 },
  getCompressedBalanceByOwner: { owner: BOB },
  getCompressedMintTokenHolders: { mint: MINT, cursor: null, limit: 10 },
  getCompressedTokenAccountBalance: { hash: JREC },
  getCompressedTokenAccountsByDelegate: { delegate: BOB, mint: MINT, cursor: null, limit: 10 },
  getCompressedTokenAccountsByDelegateV2: { delegate: BOB, mint: MINT, cursor: null, limit: 10 },
  getCompressedTokenAccountsByOwner: { owner: BOB, mint: MINT, cursor: null, limit: 10 },
  getCompressedTokenAccountsByOwnerV2: { owner: BOB, mint: null, cursor: null, limit: 10 },
  getCompressedTokenBalancesByOwner: { owner: BOB, mint: MINT, cursor: null, limit: 10 },
  getCompressedTokenBalancesByOwnerV2: { owner: BOB, cursor: null, limit: 10 },
  getCompressionSignaturesForAccount: { hash: JREC },
  getCompressionSignaturesForAddress: { address: BOB, cursor: null, limit: 10 },
  getCompressionSignaturesForOwner: { owner: BOB, cursor: null, limit: 10 },
  getCompressionSignaturesForTokenOwner: { owner: BOB, cursor: null, limit: 10 },
  getIndexerHealth: {},
  getIndexerSlot: {},
  getLatestCompressionSignatures: { cursor: null, limit: 10 },
  getLatestNonVotingSignatures: { cursor: null, limit: 10 },
  getMultipleAccountInterfaces: { addresses: [BOB, MINT] },
  getMultipleCompressedAccountProofs: [JREC],
  getMultipleCompressedAccountProofsV2: [JREC],
  getMultipleCompressedAccounts: { hashes: [JREC] },
  getMultipleCompressedAccountsV2: { addresses: [BOB] },
  getMultipleNewAddressProofs: [synthField('new-address')],
  getMultipleNewAddressProofsV2: [{ address: synthField('new-address'), tree: AMT1 }],
  getQueueElements: { tree: BMT1, outputQueue: { limit: 10, startIndex: 0, zkpBatchSize: 1 }, inputQueue: { limit: 10 } },
  getQueueInfo: { trees: [BMT1, AMT2] },
  getTransactionWithCompressionInfo: { signature: SIG },
  getTransactionWithCompressionInfoV2: { signature: SIG },
  getValidityProof: { hashes: [JREC], newAddressesWithTrees: [{ address: synthField('new-address'), tree: AMT1 }] },
  getValidityProofV2: { hashes: [JREC], newAddressesWithTrees: [{ address: synthField('new-address'), tree: AMT2 }] },
};

describe('Photon error forms', () => {
  it('every ZK method and alias is registered (38 methods + getCompressedBalance)', () => {
    const names = new Set(RPC_METHODS.flatMap((m) => [m.name, ...(m.aliases ?? [])]));
    for (const n of Object.keys(VALID)) expect(names.has(n), n).toBe(true);
    expect(Object.keys(VALID)).toHaveLength(39);
  });
  it('every valid request answers a result', async () => {
    for (const [method, params] of Object.entries(VALID)) {
      const r = await callRpc(ta, method, params);
      const noProver = method.startsWith('getValidityProof') && /no prover is configured/.test(r.error?.message ?? '');
      expect(r.error === undefined || noProver, `${method}: ${JSON.stringify(r.error)}`).toBe(true);
    }
  });
  it('address-vs-hash rule: address wins; neither is a validation error', async () => {
    expect((await callRpc(ta, 'getCompressedAccount', {})).error).toEqual({ code: -32000, message: 'Validation Error: Either address or hash must be provided' });
    expect((await callRpc(ta, 'getCompressedAccount', { address: null, hash: null })).error?.message).toBe('Validation Error: Either address or hash must be provided');
    // an unknown address wins over a known hash
    expect((await callRpc(ta, 'getCompressedAccount', { address: BOB, hash: JREC })).result).toEqual({ context: { slot: 0 }, value: null });
    expect(((await callRpc(ta, 'getCompressedAccount', { hash: JREC })).result as any).value.hash).toBe(JREC);
    expect((await callRpc(ta, 'getCompressedAccountBalance', { hash: synth('none') })).result).toEqual({ context: { slot: 0 }, value: 0 });
    expect((await callRpc(ta, 'getCompressedTokenAccountBalance', { hash: JREC })).result).toEqual({ context: { slot: 0 }, value: { amount: 5 } });
    // Photon's quirk: an address is matched against the token owner
    expect((await callRpc(ta, 'getCompressedTokenAccountBalance', { address: BOB })).result).toMatchObject({ value: { amount: expect.any(Number) } });
  });
  it('params that do not deserialize are -32602', async () => {
    for (const [method, params] of [
      ['getCompressedAccount', { hash: JREC, extra: 1 }],
      ['getCompressedAccount', [JREC]],
      ['getCompressedAccount', { hash: 'nope' }],
      ['getCompressedAccountsByOwner', {}],
      ['getCompressedAccountsByOwner', { owner: BOB, limit: 1001 }],
      ['getCompressedAccountsByOwner', { owner: BOB, limit: -1 }],
      ['getCompressedAccountsByOwner', { owner: BOB, cursor: MINT.slice(0, 20) }],
      ['getCompressedTokenAccountsByOwner', { owner: BOB, cursor: 'not base58 0OIl' }],
      ['getMultipleCompressedAccountProofs', { hashes: [JREC] }],
      ['getMultipleNewAddressProofsV2', [{ address: BOB }]],
      ['getTransactionWithCompressionInfo', { signature: JREC }],
      ['getQueueElements', { tree: BMT1, outputQueue: { limit: 70000 } }],
      ['getCompressedAccountsByOwner', { owner: BOB, filters: [{ memcmp: { offset: 0 } }] }],
      ['getCompressedAccountsByOwner', { owner: BOB, dataSlice: { offset: 0 } }],
    ] as const) {
      const r = await callRpc(ta, method, params);
      expect(r.error?.code, `${method} ${JSON.stringify(params)}`).toBe(-32602);
      expect(r.error?.message).toMatch(/^Invalid params/);
    }
  });
  it('cursor errors carry Photon\'s "Validation Error:" prefix', async () => {
    expect((await callRpc(ta, 'getCompressedTokenAccountsByOwner', { owner: BOB, cursor: MINT })).error).toEqual({
      code: -32000,
      message: 'Validation Error: Invalid cursor length. Expected 64. Received 32.',
    });
    expect((await callRpc(ta, 'getCompressedTokenBalancesByOwner', { owner: BOB, cursor: SIG })).error?.message).toBe('Validation Error: Invalid cursor length. Expected 32. Received 64.');
    expect((await callRpc(ta, 'getCompressedMintTokenHolders', { mint: MINT, cursor: MINT })).error?.message).toBe('Validation Error: Invalid cursor length. Expected 40. Received 32.');
    expect((await callRpc(ta, 'getCompressionSignaturesForOwner', { owner: BOB, cursor: SIG })).error?.message).toBe('Validation Error: Invalid cursor length. Expected 72. Received 64.');
    expect((await callRpc(ta, 'getLatestCompressionSignatures', { cursor: '0OIl' })).error).toEqual({ code: -32000, message: 'Validation Error: Invalid cursor 0OIl' });
  });
  it('validation errors', async () => {
    const six = Array(6).fill({ memcmp: { offset: 0, bytes: MINT } });
    expect((await callRpc(ta, 'getCompressedAccountsByOwner', { owner: BOB, filters: six })).error?.message).toBe('Validation Error: Too many filters. The maximum number of filters allowed is 5');
    expect((await callRpc(ta, 'getCompressedAccountsByOwner', { owner: BOB, filters: [{ memcmp: null }] })).error?.message).toBe('Validation Error: Filter instance cannot be null');
    expect((await callRpc(ta, 'getMultipleCompressedAccounts', {})).error?.message).toBe('Validation Error: Either hashes or addresses must be provided');
    expect((await callRpc(ta, 'getMultipleCompressedAccounts', { hashes: [], addresses: [] })).error?.message).toBe('Validation Error: Either hashes or addresses must be provided');
    expect((await callRpc(ta, 'getMultipleCompressedAccounts', { hashes: Array(1001).fill(JREC) })).error?.message).toBe('Validation Error: Too many hashes requested 1001. Maximum allowed: 1000');
    expect((await callRpc(ta, 'getMultipleCompressedAccountProofs', Array(1001).fill(JREC))).error?.message).toBe('Validation Error: Too many hashes requested 1001. Maximum allowed: 1000');
    expect((await callRpc(ta, 'getMultipleNewAddressProofs', [])).error?.message).toBe('Validation Error: No addresses provided');
    expect((await callRpc(ta, 'getMultipleNewAddressProofsV2', [{ address: BOB, tree: SMT1 }])).error?.message).toBe(`Validation Error: Tree ${SMT1} is not an address tree`);
    expect((await callRpc(ta, 'getMultipleNewAddressProofsV2', [{ address: BOB, tree: MINT }])).error?.message).toBe(`Validation Error: Unknown address tree ${MINT}`);
    expect((await callRpc(ta, 'getQueueElements', { tree: BMT1 })).error?.message).toBe('Validation Error: At least one queue must be requested');
    expect((await callRpc(ta, 'getQueueElements', { tree: BMT1, outputQueue: { limit: 30001 } })).error?.message).toBe('Validation Error: Too many queue elements requested 30001. Maximum allowed: 30000');
    expect((await callRpc(ta, 'getQueueElements', { tree: SMT1, outputQueue: { limit: 1 } })).error?.message).toBe(`Validation Error: Tree ${SMT1} is not a V2 (batched) state tree`);
    expect((await callRpc(ta, 'getMultipleAccountInterfaces', { addresses: Array(101).fill(BOB) })).error?.message).toBe('Validation Error: Too many addresses requested 101. Maximum allowed: 100');
  });
  it('not found', async () => {
    expect((await callRpc(ta, 'getCompressedAccountProof', { hash: synth('none') })).error).toEqual({ code: -32000, message: 'Record Not Found: Account not found' });
    expect((await callRpc(ta, 'getCompressionSignaturesForAccount', { hash: synth('none') })).error).toEqual({ code: -32000, message: 'Record Not Found: Account not found' });
    expect((await callRpc(ta, 'getMultipleCompressedAccountProofs', [JREC, synth('none')])).error?.message).toBe('Record Not Found: Leaf nodes not found for hashes. Got 1 hashes. Expected 2.');
    const unknownSig = synthSig('unknown');
    expect((await callRpc(ta, 'getTransactionWithCompressionInfo', { signature: unknownSig })).error?.message).toMatch(/^Record Not Found: Transaction /);
  });
});

describe('ZK methods under hostile params', () => {
  let deep: unknown = BOB;
  for (let i = 0; i < 200; i++) deep = [deep];
  const VALUES: unknown[] = [
    null, true, -1, 0, 1.5, 1001, 30001, 65536, 2 ** 53, 2 ** 64, 1e308, '', "' OR 1=1; DROP TABLE zk_accounts; --", '%_\\', 'ü'.repeat(5000), '1'.repeat(100_000), BOB, SIG,
    [BOB, 5], [{ memcmp: { offset: 2 ** 40, bytes: BOB } }], [{ memcmp: { offset: 1, bytes: '1'.repeat(3000) } }], { offset: 2 ** 31, length: 2 ** 31 }, { limit: 5, startIndex: 2 ** 53 },
    { x: 1 }, { $ne: 1 }, deep, [], {},
  ];
  const WHOLE: unknown[] = [null, 5, 'x', BOB, [], {}, [null], [BOB, 'x'], [{ address: BOB }], deep, Array(1001).fill(BOB)];

  it('answer a result or a -32602/-32000 error, never an internal error', async () => {
    let calls = 0;
    const check = async (method: string, params: unknown, label: string) => {
      const r = await ta.app.inject({ method: 'POST', url: `/?api-key=${ta.key}`, payload: { jsonrpc: '2.0', id: 1, method, params } });
      calls++;
      expect(r.statusCode, label).toBeLessThan(500);
      const body = r.json() as { result?: unknown; error?: { code: number; message: string } };
      if (body.error) expect([-32602, -32000, -32600], `${label}: ${body.error.message}`).toContain(body.error.code);
    };
    for (const [method, valid] of Object.entries(VALID)) {
      for (const whole of WHOLE) await check(method, whole, `${method} params=${JSON.stringify(whole)?.slice(0, 60)}`);
      if (Array.isArray(valid)) {
        for (const v of VALUES) await check(method, [v], `${method} [${JSON.stringify(v)?.slice(0, 60)}]`);
        continue;
      }
      const keys = [...Object.keys(valid as object), 'cursor', 'limit', 'extra'];
      for (const key of new Set(keys)) for (const v of VALUES) await check(method, { ...(valid as object), [key]: v }, `${method} ${key}=${JSON.stringify(v)?.slice(0, 60)}`);
    }
    expect(calls).toBeGreaterThan(3000);
    // The tables are all still there.
    expect((await callRpc(ta, 'getCompressedTokenBalancesByOwner', { owner: BOB })).result).toMatchObject({ value: { token_balances: [{ mint: MINT, balance: 105 }] } });
  }, 300_000);
});
