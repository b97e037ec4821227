/**
 * getProgramAccounts, getTokenAccountsByOwner/ByDelegate, getTokenAccountBalance, getTokenSupply and
 * getTokenLargestAccounts on a localnet whose accounts were made by real transactions (SPL Token and Token-2022
 * mints, ATAs, 1,000 seeded token accounts of one wallet, transfers, a delegate, a closed account, an assigned one).
 * Expected values come from what the test sent and from the @solana-program decoders, and the methods are checked
 * against each other and against getAccountInfo; nothing expected is produced by the code under test.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAddressWithSeed, generateKeyPairSigner, getAddressDecoder, getAddressEncoder, type Address, type Instruction, type KeyPairSigner } from '@solana/kit';
import { getAssignInstruction, getCreateAccountInstruction, getCreateAccountWithSeedInstruction, getTransferSolInstruction } from '@solana-program/system';
import * as spl from '@solana-program/token';
import * as t22 from '@solana-program/token-2022';
import { createLocalnet, type Localnet } from '../../src/sources/localnet/index.js';
import { fundedLocalnet, rpcClient, sendTx, setupSplMint, unzstd, type RpcClient } from './helpers.js';

const TOKEN = spl.TOKEN_PROGRAM_ADDRESS;
const TOKEN22 = t22.TOKEN_2022_PROGRAM_ADDRESS;
const SYSTEM = '11111111111111111111111111111111';
const SEEDED = 1000;
const FEE_BPS = 50;
const MAX_FEE = 5000n;
const META = { name: 'Account Methods', symbol: 'AMT', uri: 'https://example.test/amt.json' };

let net: Localnet;
let rpc: RpcClient;
let payer: KeyPairSigner;
let alice: KeyPairSigner;
let bob: KeyPairSigner;
let carol: KeyPairSigner;
let dave: KeyPairSigner;
const s: Record<string, Address> = {};
const seeded: Address[] = [];
const seededAmounts = new Map<Address, bigint>();
const b64 = (x: [string, string]) => Buffer.from(x[0], 'base64');
const addr = (bytes: Uint8Array) => getAddressDecoder().decode(bytes);
const keyBytes = (a: string) => Buffer.from(getAddressEncoder().encode(a as Address));
/** `amount` with `decimals` as a trimmed decimal string, by integer arithmetic. */
const decimalString = (amount: bigint, decimals: number) => {
  const unit = 10n ** BigInt(decimals);
  const frac = (amount % unit).toString().padStart(decimals, '0').replace(/0+$/, '');
  return frac ? `${amount / unit}.${frac}` : `${amount / unit}`;
};

async function send(ixs: Instruction[]): Promise<string> {
  const r = await sendTx(rpc, payer, ixs);
  if (r.reply.error) throw new Error(JSON.stringify(r.reply.error));
  return r.signature;
}

/** Its value, or its error when it fails. */
const reply = (method: string, params: unknown[]) => rpc.reply(method, params);
const errorOf = async (method: string, params: unknown[]) => (await reply(method, params)).error;

beforeAll(async () => {
  ({ net, rpc, payer } = await fundedLocalnet(500_000_000_000));
  [alice, bob, carol, dave] = await Promise.all([1, 2, 3, 4].map(() => generateKeyPairSigner()));
  await send([getTransferSolInstruction({ source: payer, destination: alice.address, amount: 1_000_000_000n })]);

  // SPL mint A (6 decimals): alice 1,000 A, 250 of it to bob, carol a delegate of alice's account for 100 base units.
  const a = await setupSplMint(rpc, payer, 6, [alice.address, bob.address], 1_000_000_000n);
  Object.assign(s, { mintA: a.mint, aliceA: a.atas[0], bobA: a.atas[1] });
  await send([
    spl.getTransferCheckedInstruction({ source: s.aliceA, mint: s.mintA, destination: s.bobA, authority: alice, amount: 250_000_000n, decimals: 6 }),
    spl.getApproveInstruction({ source: s.aliceA, delegate: carol.address, owner: alice, amount: 100n }),
  ]);
  // SPL mint B (0 decimals): alice's account stays empty; bob's is closed again.
  const b = await setupSplMint(rpc, payer, 0, [alice.address, bob.address], 0n);
  Object.assign(s, { mintB: b.mint, aliceB: b.atas[0], closedB: b.atas[1] });
  await send([spl.getCloseAccountInstruction({ account: s.closedB, destination: bob.address, owner: bob })]);

  // Token-2022 mint C (9 decimals) with a transfer fee, a metadata pointer and its metadata; alice sends bob 1 C.
  const mintC = await generateKeyPairSigner();
  s.mintC = mintC.address;
  const exts = [
    t22.extension('TransferFeeConfig', {
      transferFeeConfigAuthority: payer.address, withdrawWithheldAuthority: payer.address, withheldAmount: 0n,
      olderTransferFee: { epoch: 0n, maximumFee: MAX_FEE, transferFeeBasisPoints: FEE_BPS },
      newerTransferFee: { epoch: 0n, maximumFee: MAX_FEE, transferFeeBasisPoints: FEE_BPS },
    }),
    t22.extension('MetadataPointer', { authority: payer.address, metadataAddress: mintC.address }),
  ];
  const metadata = t22.extension('TokenMetadata', { updateAuthority: payer.address, mint: mintC.address, ...META, additionalMetadata: new Map([['k', 'v']]) });
  const rent = BigInt(await rpc.call('getMinimumBalanceForRentExemption', [t22.getMintSize([...exts, metadata])]));
  [s.aliceC, s.bobC] = await Promise.all([alice, bob].map(async (o) => (await t22.findAssociatedTokenPda({ owner: o.address, mint: mintC.address, tokenProgram: TOKEN22 }))[0]));
  await send([
    getCreateAccountInstruction({ payer, newAccount: mintC, lamports: rent, space: t22.getMintSize(exts), programAddress: TOKEN22 }),
    ...t22.getPreInitializeInstructionsForMintExtensions(mintC.address, exts),
    t22.getInitializeMintInstruction({ mint: mintC.address, decimals: 9, mintAuthority: payer.address }),
    ...t22.getPostInitializeInstructionsForMintExtensions(mintC.address, payer, [metadata]),
    t22.getUpdateTokenMetadataFieldInstruction({ metadata: mintC.address, updateAuthority: payer, field: t22.tokenMetadataField('Key', ['k']), value: 'v' }),
  ]);
  await send([
    t22.getCreateAssociatedTokenIdempotentInstruction({ payer, ata: s.aliceC, owner: alice.address, mint: mintC.address }),
    t22.getCreateAssociatedTokenIdempotentInstruction({ payer, ata: s.bobC, owner: bob.address, mint: mintC.address }),
    t22.getMintToCheckedInstruction({ mint: mintC.address, token: s.aliceC, mintAuthority: payer, amount: 5_000_000_000n, decimals: 9 }),
    t22.getTransferCheckedInstruction({ source: s.aliceC, mint: mintC.address, destination: s.bobC, authority: alice, amount: 1_000_000_000n, decimals: 9 }),
  ]);

  // 1,000 token accounts of mint A owned by dave (createAccountWithSeed + initializeAccount3), 30 of them funded.
  const rent165 = BigInt(await rpc.call('getMinimumBalanceForRentExemption', [165]));
  for (let i = 0; i < SEEDED; i++) seeded.push(await createAddressWithSeed({ baseAddress: payer.address, programAddress: TOKEN, seed: `t${i}` }));
  for (let i = 0; i < SEEDED; i += 6) {
    const ixs: Instruction[] = [];
    for (let k = i; k < Math.min(SEEDED, i + 6); k++) {
      ixs.push(
        getCreateAccountWithSeedInstruction({ payer, newAccount: seeded[k], baseAccount: payer, base: payer.address, seed: `t${k}`, amount: rent165, space: 165, programAddress: TOKEN }),
        spl.getInitializeAccount3Instruction({ account: seeded[k], mint: s.mintA, owner: dave.address }),
      );
    }
    await send(ixs);
  }
  for (let i = 0; i < 30; i += 10) {
    const ixs = seeded.slice(i, i + 10).map((token, k) => {
      const amount = BigInt(1 + ((i + k) % 7) * 1000);
      seededAmounts.set(token, amount);
      return spl.getMintToInstruction({ mint: s.mintA, token, mintAuthority: payer, amount });
    });
    await send(ixs);
  }
  net.chain.produceSlot();
}, 180_000);
afterAll(async () => net?.close());

/** The ordering agave returns scans in: ascending public-key bytes. */
const byKey = (a: string, b: string) => Buffer.compare(keyBytes(a), keyBytes(b));

describe('getProgramAccounts', () => {
  it('lists every account the program owns, each as getAccountInfo shows it, in public-key order', async () => {
    const all = await rpc.call('getProgramAccounts', [TOKEN, { encoding: 'base64' }]);
    const keys: string[] = all.map((x: any) => x.pubkey);
    expect(keys).toEqual([...keys].sort(byKey));
    for (const k of [s.mintA, s.mintB, s.aliceA, s.bobA, s.aliceB, ...seeded]) expect(keys).toContain(k);
    expect(keys).not.toContain(s.closedB);
    expect((await rpc.call('getAccountInfo', [s.closedB])).value).toBeNull();
    for (const x of all.filter((_: unknown, i: number) => i % 50 === 0)) {
      expect(x.account).toEqual((await rpc.call('getAccountInfo', [x.pubkey, { encoding: 'base64' }])).value);
    }
    const t2022: string[] = (await rpc.call('getProgramAccounts', [TOKEN22, { encoding: 'base64' }])).map((x: any) => x.pubkey);
    expect(t2022).toEqual(expect.arrayContaining([s.mintC, s.aliceC, s.bobC]));
    // Genesis accounts: the loader that owns the token program lists it.
    const loader = (await rpc.call('getAccountInfo', [TOKEN, { encoding: 'base64' }])).value.owner;
    expect((await rpc.call('getProgramAccounts', [loader, { encoding: 'base64', dataSlice: { offset: 0, length: 0 } }])).map((x: any) => x.pubkey)).toContain(TOKEN);
  });

  it('follows owner changes: an account assigned away leaves the system program and joins its new owner', async () => {
    const acct = await generateKeyPairSigner();
    const newOwner = (await generateKeyPairSigner()).address;
    // Each change in a block of its own: reads at the default commitment (finalized) see produced blocks only.
    await send([getTransferSolInstruction({ source: payer, destination: acct.address, amount: 1_000_000n })]);
    net.chain.produceSlot();
    const system = async () => (await rpc.call('getProgramAccounts', [SYSTEM, { encoding: 'base64' }])).map((x: any) => x.pubkey);
    expect(await system()).toContain(acct.address);
    expect(await rpc.call('getProgramAccounts', [newOwner])).toEqual([]);
    await send([getAssignInstruction({ account: acct, programAddress: newOwner })]);
    expect(await system()).toContain(acct.address);
    net.chain.produceSlot();
    expect(await system()).not.toContain(acct.address);
    const moved = await rpc.call('getProgramAccounts', [newOwner, { encoding: 'jsonParsed' }]);
    expect(moved).toEqual([{ pubkey: acct.address, account: (await rpc.call('getAccountInfo', [acct.address, { encoding: 'base64' }])).value }]);
    expect(moved[0].account.data).toEqual(['', 'base64']); // jsonParsed of an unknown program falls back to base64
  });

  it('applies dataSize, memcmp (base58, base64, raw bytes) and tokenAccountState like a client-side filter', async () => {
    const all: { pubkey: string; data: Buffer }[] = (await rpc.call('getProgramAccounts', [TOKEN, { encoding: 'base64' }]))
      .map((x: any) => ({ pubkey: x.pubkey, data: b64(x.account.data) }));
    const owner = keyBytes(alice.address);
    const cases: [unknown[], (d: Buffer) => boolean][] = [
      [[{ dataSize: 82 }], (d) => d.length === 82],
      [[{ dataSize: 165 }, { memcmp: { offset: 32, bytes: alice.address } }], (d) => d.length === 165 && d.subarray(32, 64).equals(owner)],
      [[{ memcmp: { offset: 32, bytes: owner.toString('base64'), encoding: 'base64' } }], (d) => d.length >= 64 && d.subarray(32, 64).equals(owner)],
      [[{ memcmp: { offset: 0, bytes: s.mintA } }, 'tokenAccountState'], (d) => d.length === 165 && d[108] !== 0 && d.subarray(0, 32).equals(keyBytes(s.mintA))],
      [[{ tokenAccountState: null }, { memcmp: { offset: 72, bytes: [1, 0, 0, 0] } }], (d) => d.length === 165 && d[108] !== 0 && d[72] === 1],
      [[{ memcmp: { offset: 164, bytes: '1111' } }], (d) => d.length >= 168 && d.subarray(164, 168).equals(Buffer.alloc(4))],
    ];
    for (const [filters, expected] of cases) {
      const got = (await rpc.call('getProgramAccounts', [TOKEN, { encoding: 'base64', filters }])).map((x: any) => x.pubkey);
      expect(got, JSON.stringify(filters)).toEqual(all.filter((x) => expected(x.data)).map((x) => x.pubkey));
    }
    // The owner filter gives what getTokenAccountsByOwner gives (1,000 accounts here).
    const gpa = await rpc.call('getProgramAccounts', [TOKEN, { encoding: 'base64', filters: [{ dataSize: 165 }, { memcmp: { offset: 32, bytes: dave.address } }] }]);
    const byOwner = await rpc.call('getTokenAccountsByOwner', [dave.address, { programId: TOKEN }, { encoding: 'base64' }]);
    expect(gpa).toHaveLength(SEEDED);
    expect(byOwner.value).toEqual(gpa);
    expect(gpa.map((x: any) => x.pubkey).sort()).toEqual([...seeded].sort());
  });

  it('encodes as binary/base58 (≤128 bytes), base64, base64+zstd and jsonParsed, with dataSlice and withContext', async () => {
    const filters = [{ memcmp: { offset: 32, bytes: alice.address } }, { dataSize: 165 }];
    const base64 = await rpc.call('getProgramAccounts', [TOKEN, { encoding: 'base64', filters }]);
    expect(base64.map((x: any) => x.pubkey)).toEqual([s.aliceA, s.aliceB].sort(byKey));
    // binary (the default) and base58 refuse 165-byte data, and accept a slice of up to 128 bytes.
    for (const encoding of [undefined, 'base58']) {
      expect(await errorOf('getProgramAccounts', [TOKEN, { encoding, filters }])).toEqual({
        code: -32600, message: 'Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.',
      });
    }
    const mints = await rpc.call('getProgramAccounts', [TOKEN, { filters, dataSlice: { offset: 0, length: 32 } }]);
    expect(mints.map((x: any) => x.account.data)).toEqual(base64.map((x: any) => addr(b64(x.account.data).subarray(0, 32))));
    const b58 = await rpc.call('getProgramAccounts', [TOKEN, { encoding: 'base58', filters, dataSlice: { offset: 37, length: 128 } }]);
    expect(b58[0].account.data[1]).toBe('base58');
    expect((await errorOf('getProgramAccounts', [TOKEN, { encoding: 'base58', filters, dataSlice: { offset: 36, length: 129 } }]))?.code).toBe(-32600);
    const sliced = await rpc.call('getProgramAccounts', [TOKEN, { encoding: 'base64', filters, dataSlice: { offset: 64, length: 8 } }]);
    expect(sliced.map((x: any) => b64(x.account.data))).toEqual(base64.map((x: any) => b64(x.account.data).subarray(64, 72)));
    expect(sliced[0].account.space).toBe(165);
    const beyond = await rpc.call('getProgramAccounts', [TOKEN, { encoding: 'base64', filters, dataSlice: { offset: 500, length: 8 } }]);
    expect(beyond[0].account.data).toEqual(['', 'base64']);

    const zstd = await rpc.call('getProgramAccounts', [TOKEN, { encoding: 'base64+zstd', filters }]);
    expect(zstd.map((x: any) => x.account.data[1])).toEqual(['base64+zstd', 'base64+zstd']);
    expect(zstd.map((x: any) => unzstd(b64(x.account.data)))).toEqual(base64.map((x: any) => b64(x.account.data)));

    const parsed = await rpc.call('getProgramAccounts', [TOKEN, { encoding: 'jsonParsed', filters }]);
    expect(parsed).toEqual((await rpc.call('getTokenAccountsByOwner', [alice.address, { programId: TOKEN }, { encoding: 'jsonParsed' }])).value);

    // getMultipleAccounts defaults to base64; getAccountInfo to binary.
    expect((await rpc.call('getMultipleAccounts', [[s.aliceA]])).value[0]).toEqual(base64.find((x: any) => x.pubkey === s.aliceA).account);
    expect((await reply('getAccountInfo', [s.aliceA])).error?.code).toBe(-32600);

    const slot = await rpc.call('getSlot');
    const ctx = await rpc.call('getProgramAccounts', [TOKEN, { encoding: 'base64', filters, withContext: true, minContextSlot: slot }]);
    expect(ctx).toEqual({ context: { apiVersion: expect.any(String), slot }, value: base64 });
    expect((await errorOf('getProgramAccounts', [TOKEN, { minContextSlot: slot + 10 }]))).toMatchObject({ code: -32016, data: { contextSlot: slot } });
  });

  it('rejects bad filters and parameters with -32602', async () => {
    const bad: [unknown[], string | RegExp][] = [
      [[TOKEN, { filters: [{ dataSize: 1 }, { dataSize: 2 }, { dataSize: 3 }, { dataSize: 4 }, { dataSize: 5 }] }], 'Too many filters provided; max 4'],
      [[TOKEN, { filters: [{ memcmp: { offset: 0, bytes: 'x'.repeat(176) } }] }], 'Invalid param: DataTooLarge'],
      [[TOKEN, { filters: [{ memcmp: { offset: 0, bytes: Buffer.alloc(129).toString('base64'), encoding: 'base64' } }] }], 'Invalid param: DataTooLarge'],
      [[TOKEN, { filters: [{ memcmp: { offset: 0, bytes: '0OIl' } }] }], /^Invalid param: Base58DecodeError/],
      [[TOKEN, { filters: [{ memcmp: { offset: 0, bytes: '1', encoding: 'hex' } }] }], /^Invalid params: unknown variant `hex`/],
      [[TOKEN, { filters: [{ lamports: 5 }] }], /^Invalid params: unknown variant `lamports`/],
      [[TOKEN, { encoding: 'jsonparsed' }], /^Invalid params: unknown variant `jsonparsed`/],
      [['not-a-key'], 'Invalid param: Invalid'],
      [[], '`params` should have at least 1 argument(s)'],
    ];
    for (const [params, message] of bad) {
      const e = await errorOf('getProgramAccounts', params);
      expect(e?.code, JSON.stringify(params)).toBe(-32602);
      expect(e?.message).toMatch(typeof message === 'string' ? new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\`]/g, '\\$&')}$`) : message);
    }
  });
});

function tokenView(x: any) {
  const d = b64(x.account.data);
  const t = d.length === 165 ? spl.getTokenDecoder().decode(d) : t22.getTokenDecoder().decode(d);
  return { pubkey: x.pubkey, mint: t.mint, owner: t.owner, amount: t.amount, delegate: t.delegate, delegatedAmount: t.delegatedAmount };
}

describe('token accounts by owner and delegate', () => {
  it('answers by program or mint, with balances the transfers produced', async () => {
    const byProgram = await rpc.call('getTokenAccountsByOwner', [alice.address, { programId: TOKEN }, { encoding: 'base64' }]);
    expect(byProgram.context.slot).toBe(await rpc.call('getSlot'));
    const views = byProgram.value.map(tokenView);
    expect(views.map((v: any) => v.pubkey)).toEqual([s.aliceA, s.aliceB].sort(byKey));
    const a = views.find((v: any) => v.pubkey === s.aliceA);
    expect(a).toMatchObject({ mint: s.mintA, owner: alice.address, amount: 750_000_000n, delegatedAmount: 100n, delegate: { __option: 'Some', value: carol.address } });
    const byMint = await rpc.call('getTokenAccountsByOwner', [alice.address, { mint: s.mintA }, { encoding: 'base64' }]);
    expect(byMint.value).toEqual(byProgram.value.filter((x: any) => x.pubkey === s.aliceA));
    const bobs = (await rpc.call('getTokenAccountsByOwner', [bob.address, { mint: s.mintA }, { encoding: 'base64' }])).value.map(tokenView);
    expect(bobs.map((v: any) => [v.pubkey, v.amount])).toEqual([[s.bobA, 250_000_000n]]);
    expect((await rpc.call('getTokenAccountsByOwner', [bob.address, { mint: s.mintB }])).value).toEqual([]); // closed
    expect((await rpc.call('getTokenAccountsByOwner', [carol.address, { programId: TOKEN }])).value).toEqual([]);

    const delegated = await rpc.call('getTokenAccountsByDelegate', [carol.address, { programId: TOKEN }, { encoding: 'base64' }]);
    expect(delegated.value).toEqual(byMint.value);
    expect((await rpc.call('getTokenAccountsByDelegate', [carol.address, { mint: s.mintA }, { encoding: 'base64' }])).value).toEqual(byMint.value);
    expect((await rpc.call('getTokenAccountsByDelegate', [carol.address, { mint: s.mintB }])).value).toEqual([]);
    expect((await rpc.call('getTokenAccountsByDelegate', [alice.address, { programId: TOKEN }])).value).toEqual([]);
  });

  it('jsonParsed: the parsed token-account shape of both programs, Token-2022 extensions included', async () => {
    const parsed = (await rpc.call('getTokenAccountsByOwner', [alice.address, { programId: TOKEN }, { encoding: 'jsonParsed' }])).value;
    const a = parsed.find((x: any) => x.pubkey === s.aliceA).account;
    expect(a.data).toEqual({
      program: 'spl-token', space: 165,
      parsed: {
        type: 'account',
        info: {
          mint: s.mintA, owner: alice.address, state: 'initialized', isNative: false, delegate: carol.address,
          tokenAmount: { amount: '750000000', decimals: 6, uiAmount: 750, uiAmountString: '750' },
          delegatedAmount: { amount: '100', decimals: 6, uiAmount: 0.0001, uiAmountString: '0.0001' },
        },
      },
    });
    const empty = parsed.find((x: any) => x.pubkey === s.aliceB).account.data.parsed.info;
    expect(empty.tokenAmount).toEqual({ amount: '0', decimals: 0, uiAmount: 0, uiAmountString: '0' });

    const c = (await rpc.call('getTokenAccountsByOwner', [bob.address, { mint: s.mintC }, { encoding: 'jsonParsed' }])).value;
    expect(c.map((x: any) => x.pubkey)).toEqual([s.bobC]);
    const fee = (1_000_000_000n * BigInt(FEE_BPS) + 9_999n) / 10_000n;
    const expectedFee = fee > MAX_FEE ? MAX_FEE : fee;
    const info = c[0].account.data.parsed.info;
    expect(c[0].account.data.program).toBe('spl-token-2022');
    expect(info.tokenAmount.amount).toBe(String(1_000_000_000n - expectedFee));
    expect(info.extensions).toEqual([{ extension: 'immutableOwner' }, { extension: 'transferFeeAmount', state: { withheldAmount: Number(expectedFee) } }]);
    // The mint, parsed through getProgramAccounts: its extensions as the test created them.
    const mint = (await rpc.call('getProgramAccounts', [TOKEN22, { encoding: 'jsonParsed', filters: [{ memcmp: { offset: 165, bytes: '2' } }] }]))
      .find((x: any) => x.pubkey === s.mintC).account.data.parsed;
    expect(mint.type).toBe('mint');
    expect(mint.info).toMatchObject({ decimals: 9, isInitialized: true, mintAuthority: payer.address, freezeAuthority: null, supply: '5000000000' });
    const ext = Object.fromEntries(mint.info.extensions.map((e: any) => [e.extension, e.state]));
    expect(ext.transferFeeConfig.newerTransferFee).toEqual({ epoch: 0, maximumFee: Number(MAX_FEE), transferFeeBasisPoints: FEE_BPS });
    expect(ext.transferFeeConfig.withdrawWithheldAuthority).toBe(payer.address);
    expect(ext.metadataPointer).toEqual({ authority: payer.address, metadataAddress: s.mintC });
    expect(ext.tokenMetadata).toEqual({ updateAuthority: payer.address, mint: s.mintC, ...META, additionalMetadata: [['k', 'v']] });
    // getAccountInfo parses the same way.
    expect((await rpc.call('getAccountInfo', [s.bobC, { encoding: 'jsonParsed' }])).value).toEqual(c[0].account);
  });

  it('rejects a missing or bad filter, an unknown mint and a non-token program with the RPC errors', async () => {
    const bad: [string, unknown[], string | RegExp][] = [
      ['getTokenAccountsByOwner', [alice.address], '`params` should have at least 2 argument(s)'],
      ['getTokenAccountsByOwner', [alice.address, {}], 'Invalid params: invalid value: map, expected map with a single key.'],
      ['getTokenAccountsByOwner', [alice.address, { mint: s.mintA, programId: TOKEN }], 'Invalid params: invalid value: map, expected map with a single key.'],
      ['getTokenAccountsByOwner', [alice.address, { owner: TOKEN }], 'Invalid params: unknown variant `owner`, expected `mint` or `programId`.'],
      ['getTokenAccountsByOwner', [alice.address, { mint: carol.address }], 'Invalid param: could not find mint'],
      ['getTokenAccountsByOwner', [alice.address, { mint: s.aliceA }], 'Invalid param: Token mint could not be unpacked'],
      ['getTokenAccountsByOwner', [alice.address, { programId: SYSTEM }], 'Invalid param: unrecognized Token program id'],
      ['getTokenAccountsByOwner', ['0OIl', { programId: TOKEN }], 'Invalid param: Invalid'],
      ['getTokenAccountsByOwner', ['abc', { programId: TOKEN }], 'Invalid param: WrongSize'],
      ['getTokenAccountsByOwner', [alice.address, { mint: 'not-a-key' }], 'Invalid param: Invalid'],
      ['getTokenAccountsByDelegate', [carol.address, { mint: alice.address }], 'Invalid param: Token mint could not be unpacked'],
      ['getTokenAccountBalance', [alice.address], 'Invalid param: not a Token account'],
      ['getTokenAccountBalance', [s.mintA], 'Invalid param: not a Token account'],
      ['getTokenAccountBalance', [carol.address], 'Invalid param: could not find account'],
      ['getTokenSupply', [s.aliceA], 'Invalid param: mint could not be unpacked'],
      ['getTokenSupply', [alice.address], 'Invalid param: not a Token mint'],
      ['getTokenLargestAccounts', [carol.address], 'Invalid param: could not find mint'],
      ['getTokenLargestAccounts', [s.aliceA], 'Invalid param: Token mint could not be unpacked'],
    ];
    for (const [method, params, message] of bad) {
      const e = await errorOf(method, params);
      expect(e, `${method} ${JSON.stringify(params)}`).toEqual({ code: -32602, message });
    }
  });
});

describe('balances, supply and largest accounts', () => {
  it('getTokenAccountBalance and getTokenSupply give what the mints and transfers produced', async () => {
    const bal = async (a: string) => (await rpc.call('getTokenAccountBalance', [a, { commitment: 'confirmed' }])).value;
    expect(await bal(s.aliceA)).toEqual({ amount: '750000000', decimals: 6, uiAmount: 750, uiAmountString: '750' });
    expect(await bal(s.bobA)).toEqual({ amount: '250000000', decimals: 6, uiAmount: 250, uiAmountString: '250' });
    expect(await bal(s.aliceB)).toEqual({ amount: '0', decimals: 0, uiAmount: 0, uiAmountString: '0' });
    expect((await bal(s.aliceC)).amount).toBe('4000000000');
    const minted = 1_000_000_000n + [...seededAmounts.values()].reduce((x, y) => x + y, 0n);
    const supply = await rpc.call('getTokenSupply', [s.mintA]);
    expect(supply.value).toEqual({ amount: String(minted), decimals: 6, uiAmount: Number(minted) / 1e6, uiAmountString: decimalString(minted, 6) });
    expect((await rpc.call('getTokenSupply', [s.mintC])).value.amount).toBe('5000000000');
    // Every base-64 account of the mint adds up to the supply.
    const accounts = await rpc.call('getProgramAccounts', [TOKEN, { encoding: 'base64', filters: [{ dataSize: 165 }, { memcmp: { offset: 0, bytes: s.mintA } }] }]);
    expect(accounts.map(tokenView).reduce((n: bigint, v: any) => n + v.amount, 0n)).toBe(minted);
  });

  it('getTokenLargestAccounts: the 20 largest, largest first, equal amounts by descending public key', async () => {
    const all = (await rpc.call('getProgramAccounts', [TOKEN, { encoding: 'base64', filters: [{ dataSize: 165 }, { memcmp: { offset: 0, bytes: s.mintA } }] }])).map(tokenView);
    const expected = all.sort((x: any, y: any) => (x.amount === y.amount ? byKey(y.pubkey, x.pubkey) : x.amount > y.amount ? -1 : 1)).slice(0, 20);
    const largest = await rpc.call('getTokenLargestAccounts', [s.mintA]);
    expect(largest.value.map((x: any) => [x.address, x.amount])).toEqual(expected.map((v: any) => [v.pubkey, String(v.amount)]));
    expect(largest.value[0]).toEqual({ address: s.aliceA, amount: '750000000', decimals: 6, uiAmount: 750, uiAmountString: '750' });
    expect((await rpc.call('getTokenLargestAccounts', [s.mintC])).value.map((x: any) => x.address)).toEqual([s.aliceC, s.bobC]);
  });
});

describe('indexes', () => {
  it('serve 1,000 token accounts of one wallet from memory, and are rebuilt for a chain restored from a snapshot', async () => {
    const t0 = performance.now();
    const mine = await rpc.call('getTokenAccountsByOwner', [dave.address, { mint: s.mintA }, { encoding: 'jsonParsed' }]);
    const elapsed = performance.now() - t0;
    expect(mine.value).toHaveLength(SEEDED);
    expect(elapsed).toBeLessThan(5_000);
    for (const x of mine.value) expect(x.account.data.parsed.info.tokenAmount.amount).toBe(String(seededAmounts.get(x.pubkey) ?? 0n));

    const path = join(mkdtempSync(join(tmpdir(), 'sg-acct-')), 'snap');
    net.chain.saveSnapshot(path);
    const restored = await createLocalnet({ slotMs: 0, snapshot: path });
    try {
      const r = rpcClient(restored.url);
      expect((await r.call('getTokenAccountsByOwner', [dave.address, { mint: s.mintA }, { encoding: 'jsonParsed' }])).value).toEqual(mine.value);
      expect(await r.call('getProgramAccounts', [TOKEN22, { encoding: 'base64' }])).toEqual(await rpc.call('getProgramAccounts', [TOKEN22, { encoding: 'base64' }]));
      expect(await r.call('getTokenLargestAccounts', [s.mintA])).toEqual(await rpc.call('getTokenLargestAccounts', [s.mintA]));
    } finally {
      await restored.close();
    }
  });
});
