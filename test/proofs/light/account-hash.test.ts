/**
 * Compressed account and token data hashes.
 *
 * Vectors: every account hash (and token `dataHash`) Photon recorded in the e2e snapshots (V1 tree smt1…:
 * plain lamport accounts and compressed token accounts), and the V2 (batched) circuit reference value of
 * light-protocol's `compressed_account.rs` test `reference`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { bigintToBytes32, bytesToBigint, initPoseidon, poseidon } from '../../../src/proofs/light/poseidon.js';
import {
  compressedAccountHash,
  compressedAccountHashWithHashedValues,
  discriminatorToBytes,
  hashToBn254FieldSizeBe,
  TOKEN_DATA_DISCRIMINATOR,
  tokenDataHash,
  tokenDataHashVersion,
} from '../../../src/proofs/light/account-hash.js';
import { SolgateError } from '../../../src/core/errors.js';
import { b58, readSnapshot, snap, toB58 } from './helpers.js';

interface WireAccount {
  hash: string;
  address: string | null;
  data: { discriminator: number; data: string; dataHash: string } | null;
  owner: string;
  lamports: number;
  tree?: string;
  merkleContext?: { tree: string; treeType: number };
  leafIndex: number;
}

interface WireTokenData {
  mint: string;
  owner: string;
  amount: number;
  delegate: string | null;
  state: 'initialized' | 'frozen';
}

/** Every recorded account, with its token data when it has some. */
function recordedAccounts(): { account: WireAccount; token?: WireTokenData; source: string }[] {
  const out: { account: WireAccount; token?: WireTokenData; source: string }[] = [];
  for (const f of [snap.lamportAccounts, snap.nullifierAccounts]) {
    for (const a of readSnapshot(f).value.items) out.push({ account: a, source: f });
  }
  for (const f of [snap.bobAccounts, snap.bobAccountsV2]) {
    for (const it of readSnapshot(f).value.items) out.push({ account: it.account, token: it.tokenData, source: f });
  }
  for (const it of readSnapshot(snap.mintTransactionV2).compressionInfo.openedAccounts) {
    out.push({ account: it.account, token: it.optionalTokenData, source: snap.mintTransactionV2 });
  }
  return out;
}

function hashOf(a: WireAccount): string {
  const tree = a.tree ?? a.merkleContext!.tree;
  return toB58(
    compressedAccountHash({
      owner: b58(a.owner),
      lamports: BigInt(a.lamports),
      address: a.address === null ? null : b58(a.address),
      data: a.data === null ? null : { discriminator: discriminatorToBytes(a.data.discriminator), dataHash: b58(a.data.dataHash) },
      merkleTree: b58(tree),
      leafIndex: a.leafIndex,
      batched: (a.merkleContext?.treeType ?? 1) === 3,
    }),
  );
}

beforeAll(async () => {
  await initPoseidon();
});

describe('recorded account hashes (V1 state tree smt1…)', () => {
  it('every recorded account hash is recomputed from its fields', () => {
    const all = recordedAccounts();
    expect(all).toHaveLength(7);
    for (const { account, source } of all) expect(hashOf(account), `${source} leaf ${account.leafIndex}`).toBe(account.hash);
  });

  it('every recorded token dataHash is the version-1 token data hash of its tokenData', () => {
    const tokens = recordedAccounts().filter((x) => x.token !== undefined);
    expect(tokens).toHaveLength(5);
    for (const { account, token } of tokens) {
      expect(account.data!.discriminator).toBe(2);
      expect(tokenDataHashVersion(discriminatorToBytes(account.data!.discriminator))).toBe(1);
      const t = token!;
      const h = tokenDataHash(
        { mint: b58(t.mint), owner: b58(t.owner), amount: BigInt(t.amount), delegate: t.delegate === null ? null : b58(t.delegate), state: t.state },
        1,
      );
      expect(toB58(h)).toBe(account.data!.dataHash);
      // the recorded data bytes are the borsh TokenData: mint, owner, amount (u64 LE), …
      const raw = Buffer.from(account.data!.data, 'base64');
      expect(toB58(raw.subarray(0, 32))).toBe(t.mint);
      expect(toB58(raw.subarray(32, 64))).toBe(t.owner);
      expect(raw.readBigUInt64LE(64)).toBe(BigInt(t.amount));
    }
  });

  it('any changed field changes the hash', () => {
    const { account } = recordedAccounts()[0];
    const base = hashOf(account);
    expect(hashOf({ ...account, leafIndex: account.leafIndex + 1 })).not.toBe(base);
    expect(hashOf({ ...account, lamports: account.lamports + 1 })).not.toBe(base);
    expect(hashOf({ ...account, tree: 'smt2rJAFdyJJupwMKAqTNAJwvjhmiZ4JYGZmbVRw1Ho' })).not.toBe(base);
    expect(hashOf({ ...account, merkleContext: { tree: account.tree!, treeType: 3 } })).not.toBe(base);
  });
});

describe('V2 (batched) account hash', () => {
  // light-protocol program-libs/compressed-account/src/compressed_account.rs, test `reference`
  const owner = new Uint8Array(32);
  owner[7] = 1;
  const merkleTree = new Uint8Array(32);
  merkleTree[7] = 3;
  const address = Uint8Array.from([
    0, 21, 245, 15, 61, 157, 224, 84, 69, 48, 190, 72, 43, 19, 47, 25, 14, 118, 20, 147, 40, 141, 175, 33, 233, 58, 36,
    179, 73, 137, 84, 99,
  ]);
  const dataHash = () => poseidon([Uint8Array.from([...new Array<number>(31).fill(2), 0])]);

  it('equals the circuit reference value 15638319165413000277907073391141043184436601830909724248083671155000605125280', () => {
    const input = { owner, lamports: 100n, address, data: { discriminator: Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 1), dataHash: dataHash() }, merkleTree, leafIndex: 1 };
    const v2 = compressedAccountHash({ ...input, batched: true });
    expect(bytesToBigint(v2)).toBe(15638319165413000277907073391141043184436601830909724248083671155000605125280n);
    expect(compressedAccountHash({ ...input, batched: false })).not.toEqual(v2);
  });

  it('is the manual composition of the reference test (big-endian leaf index and lamports, domain bytes 1 and 2)', () => {
    const discriminator = Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 1);
    const d = dataHash();
    for (const batched of [false, true]) {
      const leafIndex = 1;
      const li = batched ? BigInt(leafIndex) : bytesToBigint(Uint8Array.of(1, 0, 0, 0));
      const lamports = (batched ? 100n : bytesToBigint(bigintToBytes32(100n).reverse().subarray(0, 8))) + (1n << 64n);
      const disc = bytesToBigint(discriminator) + (2n << 64n);
      const manual = poseidon([hashToBn254FieldSizeBe(owner), li, hashToBn254FieldSizeBe(merkleTree), lamports, address, disc, d]);
      expect(compressedAccountHash({ owner, lamports: 100n, address, data: { discriminator, dataHash: d }, merkleTree, leafIndex, batched })).toEqual(manual);
    }
  });
});

describe('hash composition rules', () => {
  const ownerHashed = hashToBn254FieldSizeBe(new Uint8Array(32).fill(9));
  const merkleTreeHashed = hashToBn254FieldSizeBe(new Uint8Array(32).fill(8));

  it('zero lamports, no address and no data hash only owner, leaf index and tree', () => {
    const h = compressedAccountHashWithHashedValues({ ownerHashed, merkleTreeHashed, leafIndex: 0x01020304, lamports: 0n, address: null, data: null, batched: false });
    expect(h).toEqual(poseidon([ownerHashed, 0x04030201n, merkleTreeHashed]));
    const hb = compressedAccountHashWithHashedValues({ ownerHashed, merkleTreeHashed, leafIndex: 0x01020304, lamports: 0n, address: null, data: null, batched: true });
    expect(hb).toEqual(poseidon([ownerHashed, 0x01020304n, merkleTreeHashed]));
  });

  it('lamports word: 1 at byte 23, u64 at 24..32 (LE in V1, BE in V2)', () => {
    const lamports = 0x0102030405060708n;
    const v1 = compressedAccountHashWithHashedValues({ ownerHashed, merkleTreeHashed, leafIndex: 0, lamports, address: null, data: null, batched: false });
    expect(v1).toEqual(poseidon([ownerHashed, 0n, merkleTreeHashed, (1n << 64n) + 0x0807060504030201n]));
    const v2 = compressedAccountHashWithHashedValues({ ownerHashed, merkleTreeHashed, leafIndex: 0, lamports, address: null, data: null, batched: true });
    expect(v2).toEqual(poseidon([ownerHashed, 0n, merkleTreeHashed, (1n << 64n) + lamports]));
  });

  it('rejects malformed input', () => {
    const ok = { ownerHashed, merkleTreeHashed, leafIndex: 0, lamports: 0n, address: null, data: null, batched: false };
    expect(() => compressedAccountHashWithHashedValues({ ...ok, leafIndex: 2 ** 32 })).toThrow(SolgateError);
    expect(() => compressedAccountHashWithHashedValues({ ...ok, lamports: 1n << 64n })).toThrow(SolgateError);
    expect(() => compressedAccountHashWithHashedValues({ ...ok, address: new Uint8Array(31) })).toThrow(SolgateError);
    expect(() => compressedAccountHashWithHashedValues({ ...ok, data: { discriminator: new Uint8Array(7), dataHash: new Uint8Array(32) } })).toThrow(SolgateError);
    expect(() => compressedAccountHashWithHashedValues({ ...ok, ownerHashed: new Uint8Array(32).fill(255) })).toThrow(SolgateError);
  });

  it('discriminators: Photon shows the u64 read little-endian', () => {
    expect(Array.from(discriminatorToBytes(2))).toEqual([2, 0, 0, 0, 0, 0, 0, 0]);
    expect(Array.from(discriminatorToBytes(3n << 56n))).toEqual([0, 0, 0, 0, 0, 0, 0, 3]);
    expect(tokenDataHashVersion(TOKEN_DATA_DISCRIMINATOR[2])).toBe(2);
    expect(tokenDataHashVersion(Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 4))).toBeUndefined();
    expect(() => discriminatorToBytes(-1)).toThrow(SolgateError);
  });
});

describe('token data hash variants', () => {
  const mint = new Uint8Array(32).fill(1);
  const owner = new Uint8Array(32).fill(2);
  const delegate = new Uint8Array(32).fill(3);
  const amount = 0x0102030405060708n;
  const hm = hashToBn254FieldSizeBe(mint);
  const ho = hashToBn254FieldSizeBe(owner);
  const hd = hashToBn254FieldSizeBe(delegate);

  it('version 1: amount little-endian; delegate and frozen state appended when present', () => {
    const le = 0x0807060504030201n;
    expect(tokenDataHash({ mint, owner, amount, delegate: null, state: 'initialized' }, 1)).toEqual(poseidon([hm, ho, le]));
    expect(tokenDataHash({ mint, owner, amount, delegate, state: 'initialized' }, 1)).toEqual(poseidon([hm, ho, le, hd]));
    expect(tokenDataHash({ mint, owner, amount, delegate: null, state: 'frozen' }, 1)).toEqual(poseidon([hm, ho, le, 1n]));
    expect(tokenDataHash({ mint, owner, amount, delegate, state: 'frozen' }, 1)).toEqual(poseidon([hm, ho, le, hd, 1n]));
  });

  it('version 2: amount big-endian', () => {
    expect(tokenDataHash({ mint, owner, amount, delegate: null, state: 'initialized' }, 2)).toEqual(poseidon([hm, ho, amount]));
    expect(() => tokenDataHash({ mint, owner, amount, delegate: null, state: 'initialized' }, 3 as 1)).toThrow(SolgateError);
    expect(() => tokenDataHash({ mint, owner, amount, delegate: null, state: 'closed' as 'frozen' }, 1)).toThrow(SolgateError);
  });
});
