/**
 * Normalisation of real recorded data: every Photon getTransaction fixture (base64), the same transactions
 * re-encoded as json/base58, and every DAS Geyser-style transaction and account record.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { getBase64Encoder, getCompiledTransactionMessageDecoder, getTransactionDecoder } from '@solana/kit';
import { describe, expect, it } from 'vitest';
import { bytesToBase58 } from '../../src/core/encoding.js';
import { isWritable } from '../../src/core/model.js';
import { parseJsonLossless } from '../../src/sources/json.js';
import {
  normalizeAccountSnapshot,
  normalizeGeyserTransaction,
  normalizeRpcBlock,
  normalizeRpcTransaction,
} from '../../src/sources/normalize-rpc.js';

const FIXTURES = join(import.meta.dirname, '../fixtures');
const walk = (d: string): string[] =>
  readdirSync(d)
    .sort()
    .flatMap((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : [join(d, n)]));
const load = (f: string): any => parseJsonLossless(readFileSync(f, 'utf8'));
const photon = walk(join(FIXTURES, 'photon-transactions'));
const dasTxs = walk(join(FIXTURES, 'das/decoded/transactions'));
const dasAccounts = walk(join(FIXTURES, 'das/decoded/accounts'));
const rel = (f: string) => relative(FIXTURES, f);

/** Independent reading of the wire format: the number of static account keys. */
function staticKeyCountFromWire(bytes: Uint8Array): number {
  let off = 0;
  const shortVec = () => {
    let v = 0;
    for (let shift = 0; ; shift += 7) {
      const b = bytes[off++];
      v |= (b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
  };
  const sigs = shortVec();
  off += 64 * sigs;
  if (bytes[off] & 0x80) off++; // version prefix
  off += 3; // header
  return shortVec();
}

/** Builds the `json` encoding of a base64 getTransaction result, decoding the wire bytes with kit. */
function toJsonEncoding(r: any): any {
  const tx = getTransactionDecoder().decode(getBase64Encoder().encode(r.transaction[0]));
  const m = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
  if (m.version !== 'legacy' && m.version !== 0) throw new Error('unexpected version');
  const message: any = {
    accountKeys: m.staticAccounts,
    header: {
      numRequiredSignatures: m.header.numSignerAccounts,
      numReadonlySignedAccounts: m.header.numReadonlySignerAccounts,
      numReadonlyUnsignedAccounts: m.header.numReadonlyNonSignerAccounts,
    },
    recentBlockhash: m.lifetimeToken,
    instructions: m.instructions.map((ix) => ({
      programIdIndex: ix.programAddressIndex,
      accounts: ix.accountIndices ?? [],
      data: bytesToBase58(Uint8Array.from(ix.data ?? [])),
      stackHeight: null,
    })),
  };
  if (m.version === 0) {
    message.addressTableLookups = (m.addressTableLookups ?? []).map((l) => ({
      accountKey: l.lookupTableAddress,
      writableIndexes: l.writableIndexes,
      readonlyIndexes: l.readonlyIndexes,
    }));
  }
  const signatures = Object.values(tx.signatures).map((s) => bytesToBase58(s as Uint8Array));
  return { ...r, transaction: { signatures, message } };
}

describe('normalizeRpcTransaction on recorded Photon getTransaction results', () => {
  it('has fixtures', () => expect(photon.length).toBeGreaterThan(200));

  it.each(photon.map((f) => [rel(f), f]))('%s', (_, file) => {
    const r = load(file);
    const t = normalizeRpcTransaction(r);
    const m = r.meta;
    expect(t.signature).toBe(basename(file));
    expect(t.signatures[0]).toBe(t.signature);
    expect(t.slot).toBe(r.slot);
    expect(t.blockTime).toBe(r.blockTime);
    expect(t.indexInBlock).toBeNull();
    expect(t.version).toBe(r.version ?? 'legacy');
    const staticCount = staticKeyCountFromWire(Buffer.from(r.transaction[0], 'base64'));
    const loaded = [...m.loadedAddresses.writable, ...m.loadedAddresses.readonly];
    expect(t.staticKeyCount).toBe(staticCount);
    expect(t.accountKeys.length).toBe(staticCount + loaded.length);
    expect(t.accountKeys.slice(staticCount)).toEqual(loaded);
    expect(t.meta).not.toBeNull();
    expect(t.meta!.fee).toBe(BigInt(m.fee));
    expect(t.meta!.err).toEqual(m.err);
    expect(t.meta!.preBalances).toEqual(m.preBalances.map(BigInt));
    expect(t.meta!.postBalances).toEqual(m.postBalances.map(BigInt));
    expect(t.meta!.computeUnitsConsumed).toBe(BigInt(m.computeUnitsConsumed));
    for (const k of ['preTokenBalances', 'postTokenBalances'] as const) {
      expect(t.meta![k]!.map((b) => [b.accountIndex, b.mint, b.owner, b.amount, b.decimals])).toEqual(
        m[k].map((b: any) => [b.accountIndex, b.mint, b.owner, BigInt(b.uiTokenAmount.amount), b.uiTokenAmount.decimals]),
      );
    }
    expect(t.innerInstructions.length).toBe(m.innerInstructions.length);
    t.innerInstructions.forEach((g, i) => {
      expect(g.index).toBe(m.innerInstructions[i].index);
      expect(g.instructions.length).toBe(m.innerInstructions[i].instructions.length);
      expect(g.instructions.map((ix) => ix.stackHeight)).toEqual(
        m.innerInstructions[i].instructions.map((ix: any) => ix.stackHeight ?? null),
      );
    });
    expect(t.logMessages).toEqual(m.logMessages);
    expect(t.header!.numRequiredSignatures).toBe(t.signatures.length);
    expect(isWritable(t, 0)).toBe(true); // fee payer
    expect(t.isVote).toBe(false);
  });
});

describe('encodings give the same NormalizedTx', () => {
  it.each(photon.map((f) => [rel(f), f]))('json and base58 vs base64: %s', (_, file) => {
    const r = load(file);
    const fromB64 = normalizeRpcTransaction(r);
    expect(normalizeRpcTransaction(toJsonEncoding(r))).toEqual(fromB64);
    const b58 = bytesToBase58(Buffer.from(r.transaction[0], 'base64'));
    expect(normalizeRpcTransaction({ ...r, transaction: [b58, 'base58'] })).toEqual(fromB64);
  });
});

describe('address lookup tables', () => {
  // Turn a recorded legacy transaction into a v0 one that loads its last (read-only) static key from a table:
  // the resolved key list must be unchanged, with the key now counted as loaded.
  const file = photon.find((f) => {
    const j = toJsonEncoding(load(f));
    return j.transaction.message.header.numReadonlyUnsignedAccounts > 0;
  })!;
  const base = toJsonEncoding(load(file));
  const keys: string[] = base.transaction.message.accountKeys;
  const moved = keys[keys.length - 1];
  const table = 'AddressLookupTab1e1111111111111111111111111';
  const v0 = structuredClone(base);
  v0.version = 0;
  v0.transaction.message.accountKeys = keys.slice(0, -1);
  v0.transaction.message.header.numReadonlyUnsignedAccounts -= 1;
  v0.transaction.message.addressTableLookups = [{ accountKey: table, writableIndexes: [], readonlyIndexes: [7] }];
  v0.meta.loadedAddresses = { writable: [], readonly: [moved] };

  it('resolves static then loaded writable then loaded readonly keys', () => {
    const t = normalizeRpcTransaction(v0);
    expect(t.version).toBe(0);
    expect(t.accountKeys).toEqual(keys);
    expect(t.staticKeyCount).toBe(keys.length - 1);
    expect(t.addressTableLookups).toEqual([{ accountKey: table, writableIndexes: [], readonlyIndexes: [7] }]);
    expect(isWritable(t, keys.length - 1)).toBe(false);
    expect(t.instructions).toEqual(normalizeRpcTransaction(base).instructions);
  });

  it('requires meta.loadedAddresses to match the lookups', () => {
    const missing = structuredClone(v0);
    delete missing.meta.loadedAddresses;
    expect(() => normalizeRpcTransaction(missing)).toThrow(/meta\.loadedAddresses is required/);
    const wrong = structuredClone(v0);
    wrong.meta.loadedAddresses = { writable: [moved], readonly: [] };
    expect(() => normalizeRpcTransaction(wrong)).toThrow(/meta\.loadedAddresses has 1 writable\/0 readonly/);
  });
});

describe('malformed input fails with the field named', () => {
  const r = load(photon[0]);
  const json = toJsonEncoding(r);
  const cases: [string, (x: any) => void, RegExp, any?][] = [
    ['fee', (x) => (x.meta.fee = 'abc'), /invalid getTransaction result: meta\.fee must be an unsigned 64-bit integer/],
    ['balance', (x) => (x.meta.preBalances[2] = -1), /meta\.preBalances\[2\]/],
    ['balance count', (x) => x.meta.postBalances.pop(), /meta\.postBalances has \d+ entries/],
    ['transaction', (x) => delete x.transaction, /transaction must be an object, got undefined/],
    ['wire bytes', (x) => (x.transaction = ['AAAA', 'base64']), /transaction\[0\] is not a valid wire transaction/],
    ['encoding', (x) => (x.transaction[1] = 'base64+zstd'), /transaction\[1\] must be "base64" or "base58"/],
    ['slot', (x) => delete x.slot, /slot must be an unsigned integer/],
    ['version', (x) => (x.version = 1), /version must be "legacy" or 0/],
    ['inner', (x) => (x.meta.innerInstructions[0].instructions[0].data = '0OIl'), /meta\.innerInstructions\[0\]\.instructions\[0\]\.data must be base58/],
    ['token amount', (x) => (x.meta.preTokenBalances = [{ accountIndex: 0, mint: 'x' }]), /meta\.preTokenBalances\[0\]\.uiTokenAmount must be an object/],
    [
      'token mint',
      (x) => (x.meta.postTokenBalances = [{ accountIndex: 0, mint: 'x', uiTokenAmount: { amount: '1', decimals: 0 } }]),
      /meta\.postTokenBalances\[0\]\.mint must be a base58 address/,
    ],
    ['header', (x) => delete x.transaction.message.header, /transaction\.message\.header must be an object/, json],
    ['jsonParsed', (x) => (x.transaction.message.instructions[0] = { programId: 'x', parsed: {} }), /jsonParsed encoding is not supported/, json],
    ['index', (x) => (x.transaction.message.instructions[0].accounts = [200]), /instructions\[0\]\.accounts refers to account 200/, json],
    ['account index', (x) => (x.transaction.message.instructions[0].accounts = [1, 256]), /instructions\[0\]\.accounts\[1\] must be an account index \(0-255\), got 256/, json],
    [
      'inner index',
      (x) => (x.meta.innerInstructions[0].instructions[0].accounts = [0, 200]),
      /meta\.innerInstructions\[0\]\.instructions\[0\]\.accounts refers to account 200/,
      json,
    ],
    [
      'token balance index',
      (x) => (x.meta.postTokenBalances = [{ accountIndex: 200, mint: 'So11111111111111111111111111111111111111112', uiTokenAmount: { amount: '1', decimals: 0 } }]),
      /meta\.tokenBalances\.accountIndex refers to account 200/,
    ],
    [
      'token balance amount',
      (x) => (x.meta.postTokenBalances = [{ accountIndex: 0, mint: 'So11111111111111111111111111111111111111112', uiTokenAmount: { amount: '-1', decimals: 0 } }]),
      /meta\.postTokenBalances\[0\]\.uiTokenAmount\.amount must be an unsigned 64-bit integer/,
    ],
    ['balance text', (x) => (x.meta.postBalances[1] = '12x'), /meta\.postBalances\[1\] must be an unsigned 64-bit integer, got "12x"/],
  ];
  it.each(cases)('%s', (_, mutate, re, src = r) => {
    const x = structuredClone(src);
    mutate(x);
    expect(() => normalizeRpcTransaction(x)).toThrow(re);
  });
  it('rejects a non-object', () => expect(() => normalizeRpcTransaction(null)).toThrow(/result must be an object, got null/));

  it('accepts meta null and a missing version', () => {
    const t = normalizeRpcTransaction({ ...r, meta: null, version: undefined });
    expect(t.meta).toBeNull();
    expect(t.logMessages).toBeNull();
    expect(t.innerInstructions).toEqual([]);
    expect(t.version).toBe('legacy');
  });

  it('accepts token balances without owner/programId and null innerInstructions', () => {
    const x = structuredClone(r);
    x.meta.preTokenBalances = [{ accountIndex: 1, mint: x.meta.loadedAddresses.writable[0] ?? 'So11111111111111111111111111111111111111112', uiTokenAmount: { amount: '18446744073709551615', decimals: 6 } }];
    x.meta.innerInstructions = null;
    const t = normalizeRpcTransaction(x);
    expect(t.meta!.preTokenBalances![0]).toMatchObject({ owner: null, programId: null, amount: 18446744073709551615n });
    expect(t.innerInstructions).toEqual([]);
  });
});

describe('normalizeRpcBlock', () => {
  const entries = photon.slice(0, 3).map((f) => {
    const { slot: _s, blockTime: _b, ...entry } = load(f);
    return entry;
  });
  const block = {
    blockhash: 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG',
    previousBlockhash: '11111111111111111111111111111111',
    parentSlot: 41,
    blockTime: 1700000000,
    blockHeight: 40,
    transactions: entries,
  };

  it('takes the slot from the caller and positions from the array', () => {
    const b = normalizeRpcBlock(block, 42);
    expect(b).toMatchObject({ slot: 42, parentSlot: 41, blockTime: 1700000000, blockHeight: 40 });
    expect(b.transactions.map((t) => [t.slot, t.indexInBlock, t.blockTime])).toEqual([
      [42, 0, 1700000000],
      [42, 1, 1700000000],
      [42, 2, 1700000000],
    ]);
    expect(b.transactions.map((t) => t.signature)).toEqual(photon.slice(0, 3).map((f) => basename(f)));
  });

  it('names the failing transaction', () => {
    const bad = structuredClone(block);
    bad.transactions[1].meta.fee = null;
    expect(() => normalizeRpcBlock(bad, 42)).toThrow(/invalid getBlock result \(slot 42\): transactions\[1\]\.meta\.fee/);
    expect(() => normalizeRpcBlock({ ...block, transactions: undefined }, 42)).toThrow(/transactionDetails: 'full'/);
  });
});

describe('Geyser-style DAS transaction records', () => {
  it.each(dasTxs.map((f) => [rel(f), f]))('%s', (_, file) => {
    const r = load(file);
    const t = normalizeGeyserTransaction(r);
    expect(t.signature).toBe(basename(file, '.json'));
    expect(t.signatures).toEqual([t.signature]);
    expect(t.slot).toBe(r.slot);
    expect(t.version).toBe(r.version === 'legacy' ? 'legacy' : 0);
    expect(t.accountKeys).toEqual(r.accountKeys);
    expect(t.staticKeyCount).toBe(r.accountKeys.length);
    expect(t.header).toBeNull();
    expect(t.meta).toBeNull();
    expect(t.instructions.length).toBe(r.outerInstructions.length);
    expect(t.instructions.every((ix) => ix.stackHeight === 1)).toBe(true);
    expect(t.innerInstructions.map((g) => [g.index, g.instructions.length])).toEqual(
      r.innerInstructions.map((g: any) => [g.index, g.instructions.length]),
    );
    expect(t.logMessages).toEqual(r.logMessages);
    expect(t.isVote).toBe(false);
  });

  it('names the failing field', () => {
    const r = load(dasTxs[0]);
    expect(() => normalizeGeyserTransaction({ ...r, accountKeys: ['nope'] })).toThrow(
      /invalid Geyser transaction record: accountKeys\[0\] must be a base58 address/,
    );
  });
});

describe('account snapshots', () => {
  it.each(dasAccounts.map((f) => [rel(f), f]))('%s', (_, file) => {
    const r = load(file);
    const a = normalizeAccountSnapshot(r);
    expect(a.pubkey).toBe(basename(file, '.json'));
    expect(a.owner).toBe(r.owner);
    expect(a.lamports).toBe(BigInt(r.lamports));
    expect(a.data.length).toBe(r.dataLen);
    expect(Buffer.from(a.data).toString('base64')).toBe(r.data[0]);
    expect(a.executable).toBe(r.executable);
    expect(a.slot).toBe(r.slot);
    expect(a.writeVersion).toBe(BigInt(r.writeVersion));
  });

  it('keeps u64 values exact through lossless parsing', () => {
    const text = readFileSync(dasAccounts[0], 'utf8');
    expect((load(dasAccounts[0]) as any).rentEpoch).toBe('18446744073709551615');
    expect(JSON.parse(text).rentEpoch).toBe(18446744073709552000);
    const a = normalizeAccountSnapshot({ ...load(dasAccounts[0]), lamports: '500000000000000001' });
    expect(a.lamports).toBe(500000000000000001n);
  });

  it('rejects bad data', () => {
    const r = load(dasAccounts[0]);
    expect(() => normalizeAccountSnapshot({ ...r, data: ['@@', 'base64'] })).toThrow(/account snapshot: data\[0\] must be base64/);
    expect(() => normalizeAccountSnapshot({ ...r, owner: undefined })).toThrow(/owner must be a base58 address/);
  });
});

describe('parseJsonLossless', () => {
  it('quotes only long integer literals outside strings', () => {
    expect(parseJsonLossless('{"a":18446744073709551615,"b":"12345678901234567890","c":1.5,"d":[-12345678901234567,7]}')).toEqual({
      a: '18446744073709551615',
      b: '12345678901234567890',
      c: 1.5,
      d: ['-12345678901234567', 7],
    });
    expect(parseJsonLossless('{"s":"x\\"123456789012345678","f":0.12345678901234567}')).toEqual({
      s: 'x"123456789012345678',
      f: 0.12345678901234567,
    });
  });

  it('keeps numbers of 16 digits that are exact, and quotes every long literal once one is not', () => {
    // The real block's largest balance: 16 digits, below 2^53.
    expect(parseJsonLossless('{"preBalances":[3875956465078590,5],"s":": 882121401292542762,"}')).toEqual({
      preBalances: [3875956465078590, 5],
      s: ': 882121401292542762,',
    });
    // 2^53 + 1 would parse as 2^53: the text is rewritten, and then the exact 16-digit literal is a string too.
    expect(parseJsonLossless('{"a":[9007199254740993],"b":{"c":3875956465078590}}')).toEqual({ a: ['9007199254740993'], b: { c: '3875956465078590' } });
    expect(parseJsonLossless('[{"x":[[-9007199254740993]]}]')).toEqual([{ x: [['-9007199254740993']] }]);
    // A number beyond the bound that is no integer literal also sends the text to the rewrite, which leaves it as is.
    expect(parseJsonLossless('{"big":1e300,"n":1234567890123456}')).toEqual({ big: 1e300, n: '1234567890123456' });
  });
});
