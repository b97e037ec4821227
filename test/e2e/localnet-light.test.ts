/**
 * ZK Compression on the built-in localnet, end to end over its JSON-RPC: a chain started with `light: true`
 * runs real Light Protocol transactions built by the official SDKs (@lightprotocol/stateless.js and
 * @lightprotocol/compressed-token instruction builders, @solana/web3.js transactions, sent raw with
 * `sendTransaction`) and by solgate's @solana/kit builders (`light-instructions.ts`).
 *
 * Offline there is no Photon indexer and no prover, so only what needs neither runs: compressing SOL into a
 * V1 or a V2 state tree, creating a mint with its token pool, minting compressed tokens (V1 and V2), and
 * spending compressed SOL and compressed tokens that are still in a V2 output queue (proof by index). Leaf
 * indices come from the transactions themselves, decoded with stateless.js's own `parseLightTransaction` (what
 * its test RPC does from `getTransaction`).
 *
 * Asserted for every transaction: `getTransaction` reports success; the expected programs ran (light system
 * program at depth 1 or 2 → account compression `InsertIntoQueues` one level deeper); and the tree accounts
 * changed as the operation implies (V1 tree next index, V2 output-queue next index, V2 tree input queue on a
 * spend), read back with `getAccountInfo`. The current Light programs no longer CPI the noop program (the event
 * travels in the account-compression instruction data), so the noop is asserted NOT to run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ComputeBudgetProgram, Keypair, LAMPORTS_PER_SOL, PublicKey, TransactionMessage, VersionedTransaction,
  type TransactionInstruction, type VersionedTransactionResponse,
} from '@solana/web3.js';
import bs58 from 'bs58';
import {
  COMPUTE_BUDGET_PATTERN, LightSystemProgram, TreeType, bn, createRpc, localTestActiveStateTreeInfos,
  parseLightTransaction, type PublicTransactionEvent, type Rpc, type TreeInfo,
} from '@lightprotocol/stateless.js';
import { CompressedTokenProgram, getSplInterfaceInfos } from '@lightprotocol/compressed-token';
import { createKeyPairSignerFromPrivateKeyBytes, type KeyPairSigner } from '@solana/kit';
import { createLocalnet, type Localnet } from '../../src/sources/localnet/index.js';
import { buildWireTransaction } from '../../src/sources/localnet/demo.js';
import {
  ACCOUNT_COMPRESSION_PROGRAM, COMPRESSED_TOKEN_PROGRAM, DEFAULT_STATE_TREE_V1, DEFAULT_STATE_TREE_V2,
  LIGHT_NOOP_PROGRAM, LIGHT_SOL_POOL_PDA, LIGHT_STATE_TREES_V2, LIGHT_SYSTEM_PROGRAM, v1StateTreeNextIndex,
  v2OutputQueueCounters,
} from '../../src/sources/localnet/light.js';
import {
  getCompressSolInstruction, getCompressedMintToInstruction, getCompressedTokenPoolAddress,
  getCreateCompressedMintInstructions, getTransferCompressedSolByIndexInstruction,
  getTransferCompressedTokensByIndexInstruction,
} from '../../src/sources/localnet/light-instructions.js';

let net: Localnet;
let rpc: Rpc;
let payer: Keypair;
const infos = localTestActiveStateTreeInfos();
const V1 = infos.find((i) => i.treeType === TreeType.StateV1)!;
const V2 = infos.find((i) => i.treeType === TreeType.StateV2)!;

beforeAll(async () => {
  net = await createLocalnet({ slotMs: 0, light: true });
  rpc = createRpc(net.url, net.url); // Photon endpoint = the localnet: only its standard Solana methods are used
  payer = Keypair.generate();
  await rpc.requestAirdrop(payer.publicKey, 50 * LAMPORTS_PER_SOL);
  net.chain.produceSlot();
});
afterAll(async () => net?.close());

/** Signs (v0) and sends raw through the RPC with preflight, produces the slot, returns `getTransaction`. */
async function send(ixs: TransactionInstruction[], signers: Keypair[] = []): Promise<VersionedTransactionResponse> {
  const { blockhash } = await rpc.getLatestBlockhash();
  const message = new TransactionMessage({
    payerKey: payer.publicKey, recentBlockhash: blockhash,
    instructions: [ComputeBudgetProgram.setComputeUnitLimit({ units: 1_000_000 }), ...ixs],
  }).compileToV0Message();
  const tx = new VersionedTransaction(message);
  tx.sign([payer, ...signers]);
  const signature = await rpc.sendRawTransaction(tx.serialize());
  net.chain.produceSlot();
  const got = await rpc.getTransaction(signature, { maxSupportedTransactionVersion: 0, commitment: 'confirmed' });
  expect(got, signature).not.toBeNull();
  expect(got!.meta!.err, got!.meta!.logMessages!.join('\n')).toBeNull();
  return got!;
}

/** Sends a transaction built with @solana/kit through the same JSON-RPC. */
async function sendKit(feePayer: KeyPairSigner, instructions: Parameters<typeof buildWireTransaction>[0]['instructions']): Promise<VersionedTransactionResponse> {
  const { blockhash } = await rpc.getLatestBlockhash();
  const wire = await buildWireTransaction({ feePayer, instructions, blockhash, version: 0 });
  const signature = await rpc.sendRawTransaction(wire);
  net.chain.produceSlot();
  const got = await rpc.getTransaction(signature, { maxSupportedTransactionVersion: 0, commitment: 'confirmed' });
  expect(got!.meta!.err, got!.meta!.logMessages!.join('\n')).toBeNull();
  return got!;
}

/** The Light event of a transaction, decoded by stateless.js from `getTransaction` (as its test RPC does). */
function lightEvent(tx: VersionedTransactionResponse): PublicTransactionEvent {
  const keys = tx.transaction.message.staticAccountKeys;
  const dataVec: Uint8Array[] = [];
  for (const ix of tx.transaction.message.compiledInstructions) {
    const d = Uint8Array.from(ix.data);
    if (d.length === COMPUTE_BUDGET_PATTERN.length && COMPUTE_BUDGET_PATTERN.every((b, i) => b === d[i])) continue;
    dataVec.push(d);
  }
  const groups: PublicKey[][] = [];
  for (const group of tx.meta!.innerInstructions ?? []) {
    for (const ix of group.instructions) {
      groups.push(ix.accounts.map((a) => keys[a]));
      dataVec.push(bs58.decode(ix.data));
    }
  }
  const event = parseLightTransaction(dataVec, groups);
  expect(event, 'light event').toBeTruthy();
  return event!;
}

/** Program ids of the inner instructions, with their stack heights. */
function innerPrograms(tx: VersionedTransactionResponse): [string, number | undefined][] {
  const keys = tx.transaction.message.staticAccountKeys;
  return (tx.meta!.innerInstructions ?? []).flatMap((g) => g.instructions.map((ix) => [keys[ix.programIdIndex].toBase58(), (ix as { stackHeight?: number }).stackHeight] as [string, number | undefined]));
}

/** Light system program at `depth` → account compression (InsertIntoQueues) at depth + 1; never the noop. */
function expectLightPath(tx: VersionedTransactionResponse, depth: 1 | 2): void {
  const logs = tx.meta!.logMessages!;
  const sys = logs.indexOf(`Program ${LIGHT_SYSTEM_PROGRAM} invoke [${depth}]`);
  const acp = logs.indexOf(`Program ${ACCOUNT_COMPRESSION_PROGRAM} invoke [${depth + 1}]`);
  expect(sys, logs.join('\n')).toBeGreaterThanOrEqual(0);
  expect(acp).toBeGreaterThan(sys);
  expect(logs[acp + 1]).toBe('Program log: Instruction: InsertIntoQueues');
  expect(logs).toContain(`Program ${ACCOUNT_COMPRESSION_PROGRAM} success`);
  expect(logs.at(-1)).toMatch(/ success$/);
  const inner = innerPrograms(tx);
  expect(inner).toContainEqual([ACCOUNT_COMPRESSION_PROGRAM, depth + 1]);
  if (depth === 2) expect(inner).toContainEqual([LIGHT_SYSTEM_PROGRAM, 2]);
  expect(inner.map(([p]) => p)).not.toContain(LIGHT_NOOP_PROGRAM);
  expect(logs.join('\n')).not.toContain(LIGHT_NOOP_PROGRAM);
}

const data = async (key: PublicKey | string): Promise<Uint8Array> => {
  const info = await rpc.getAccountInfo(typeof key === 'string' ? new PublicKey(key) : key);
  expect(info, String(key)).not.toBeNull();
  return new Uint8Array(info!.data);
};
const v1Next = async (t: TreeInfo) => v1StateTreeNextIndex(await data(t.tree));
const v2Next = async (t: TreeInfo | { queue: string }) => v2OutputQueueCounters(await data(t.queue as PublicKey | string)).nextIndex;
/** SPL Token account amount (u64 at byte 64); the localnet RPC has no getTokenAccountBalance. */
const splAmount = async (key: PublicKey | string): Promise<bigint> => Buffer.from(await data(key)).readBigUInt64LE(64);
const equal = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

describe('localnet with Light programs: stateless.js / compressed-token builders over JSON-RPC', () => {
  const bob = Keypair.generate();
  let v2Sol: { leafIndex: number; lamports: bigint } | undefined;

  it('the tree set stateless.js uses on localnet exists on the chain', async () => {
    for (const t of infos) {
      const tree = await rpc.getAccountInfo(t.tree);
      expect(tree?.owner.toBase58(), t.tree.toBase58()).toBe(ACCOUNT_COMPRESSION_PROGRAM);
      if (t.treeType === TreeType.StateV1 || t.treeType === TreeType.StateV2) {
        expect((await rpc.getAccountInfo(t.queue))?.owner.toBase58()).toBe(ACCOUNT_COMPRESSION_PROGRAM);
        expect((await rpc.getAccountInfo(t.cpiContext!))?.owner.toBase58()).toBe(LIGHT_SYSTEM_PROGRAM);
      }
    }
    for (const p of [LIGHT_SYSTEM_PROGRAM, ACCOUNT_COMPRESSION_PROGRAM, COMPRESSED_TOKEN_PROGRAM, LIGHT_NOOP_PROGRAM]) {
      expect((await rpc.getAccountInfo(new PublicKey(p)))?.executable, p).toBe(true);
    }
  });

  it('compresses SOL into a V1 state tree (smt1): the tree appends one leaf, its nullifier queue is untouched', async () => {
    const lamports = 2_000_000;
    const [next0, queue0, payer0, tree0] = [await v1Next(V1), await data(V1.queue), await rpc.getBalance(payer.publicKey), await rpc.getBalance(V1.tree)];
    const tx = await send([await LightSystemProgram.compress({ payer: payer.publicKey, toAddress: payer.publicKey, lamports, outputStateTreeInfo: V1 })]);
    expectLightPath(tx, 1);
    expect(await v1Next(V1)).toBe(next0 + 1n);
    expect(equal(await data(V1.queue), queue0)).toBe(true);
    // The payer pays the compressed lamports, the transaction fee and the tree's rollover fee per output.
    const rolloverFee = (await rpc.getBalance(V1.tree)) - tree0;
    expect(rolloverFee).toBeGreaterThan(0);
    expect(await rpc.getBalance(payer.publicKey)).toBe(payer0 - lamports - tx.meta!.fee - rolloverFee);
    expect(await rpc.getBalance(new PublicKey(LIGHT_SOL_POOL_PDA))).toBe(lamports);
    const ev = lightEvent(tx);
    expect(ev.inputCompressedAccountHashes).toEqual([]);
    expect(ev.outputLeafIndices).toEqual([Number(next0)]);
    expect(ev.outputCompressedAccounts[0].compressedAccount.owner.toBase58()).toBe(payer.publicKey.toBase58());
    expect(ev.outputCompressedAccounts[0].compressedAccount.lamports.toString()).toBe(String(lamports));
    expect(ev.pubkeyArray[ev.outputCompressedAccounts[0].merkleTreeIndex].toBase58()).toBe(V1.tree.toBase58());
  });

  it('compresses SOL into a V2 state tree: the output queue (oq1) takes the leaf, the batched tree is untouched', async () => {
    const lamports = 3_000_000;
    const [next0, tree0] = [await v2Next(V2), await data(V2.tree)];
    const tx = await send([await LightSystemProgram.compress({ payer: payer.publicKey, toAddress: payer.publicKey, lamports, outputStateTreeInfo: V2 })]);
    expectLightPath(tx, 1);
    expect(await v2Next(V2)).toBe(next0 + 1n);
    expect(equal(await data(V2.tree), tree0)).toBe(true);
    const ev = lightEvent(tx);
    expect(ev.outputLeafIndices).toEqual([Number(next0)]);
    expect(ev.pubkeyArray[ev.outputCompressedAccounts[0].merkleTreeIndex].toBase58()).toBe(V2.queue.toBase58());
    v2Sol = { leafIndex: ev.outputLeafIndices[0], lamports: BigInt(lamports) };
  });

  it('transfers compressed SOL out of the V2 queue by index (no proof): input nullified in the tree, two outputs queued', async () => {
    expect(v2Sol).toBeDefined();
    const [next0, tree0] = [await v2Next(V2), await data(V2.tree)];
    const input = {
      owner: payer.publicKey, lamports: bn(v2Sol!.lamports.toString()), address: null, data: null,
      treeInfo: V2, hash: bn(0), leafIndex: v2Sol!.leafIndex, proveByIndex: true, readOnly: false,
    };
    const tx = await send([await LightSystemProgram.transfer({
      payer: payer.publicKey, inputCompressedAccounts: [input], toAddress: bob.publicKey, lamports: 1_200_000,
      recentInputStateRootIndices: [0], recentValidityProof: null,
    })]);
    expectLightPath(tx, 1);
    expect(await v2Next(V2)).toBe(next0 + 2n);
    expect(equal(await data(V2.tree), tree0)).toBe(false); // the nullifier went into the tree's input queue
    const ev = lightEvent(tx);
    expect(ev.inputCompressedAccountHashes).toHaveLength(1);
    expect(ev.outputLeafIndices).toEqual([Number(next0), Number(next0) + 1]);
    expect(ev.outputCompressedAccounts.map((o) => [o.compressedAccount.owner.toBase58(), o.compressedAccount.lamports.toString()])).toEqual([
      [payer.publicKey.toBase58(), '1800000'],
      [bob.publicKey.toBase58(), '1200000'],
    ]);
  });

  it('spending the same queued account twice fails (the input queue already holds its nullifier)', async () => {
    const input = {
      owner: payer.publicKey, lamports: bn(v2Sol!.lamports.toString()), address: null, data: null,
      treeInfo: V2, hash: bn(0), leafIndex: v2Sol!.leafIndex, proveByIndex: true, readOnly: false,
    };
    const ix = await LightSystemProgram.transfer({
      payer: payer.publicKey, inputCompressedAccounts: [input], toAddress: bob.publicKey, lamports: 1,
      recentInputStateRootIndices: [0], recentValidityProof: null,
    });
    await expect(send([ix])).rejects.toThrow(/simulation failed/i);
  });

  describe('compressed tokens', () => {
    const mint = Keypair.generate();
    let minted: { leafIndex: number; amount: bigint } | undefined;

    it('creates an SPL mint with its compressed-token pool (createMint)', async () => {
      const rent = await rpc.getMinimumBalanceForRentExemption(82);
      const tx = await send(await CompressedTokenProgram.createMint({
        feePayer: payer.publicKey, mint: mint.publicKey, authority: payer.publicKey, freezeAuthority: null, decimals: 6, rentExemptBalance: rent,
      }), [mint]);
      expect(tx.meta!.logMessages).toContain(`Program ${COMPRESSED_TOKEN_PROGRAM} invoke [1]`);
      const [pool] = await getSplInterfaceInfos(rpc, mint.publicKey);
      expect(pool.isInitialized).toBe(true);
      expect(pool.splInterfacePda.toBase58()).toBe(await getCompressedTokenPoolAddress(mint.publicKey.toBase58()));
    });

    it('mints compressed tokens into a V2 tree (mintTo): compressed token → light system → account compression', async () => {
      const [pool] = await getSplInterfaceInfos(rpc, mint.publicKey);
      const next0 = await v2Next(V2);
      const tx = await send([await CompressedTokenProgram.mintTo({
        feePayer: payer.publicKey, mint: mint.publicKey, authority: payer.publicKey, toPubkey: payer.publicKey,
        amount: 1_000_000, outputStateTreeInfo: V2, tokenPoolInfo: pool,
      })]);
      const logs = tx.meta!.logMessages!;
      expect(logs[logs.indexOf(`Program ${COMPRESSED_TOKEN_PROGRAM} invoke [1]`) + 1]).toBe('Program log: Instruction: MintTo');
      expectLightPath(tx, 2);
      expect(await v2Next(V2)).toBe(next0 + 1n);
      const ev = lightEvent(tx);
      expect(ev.outputLeafIndices).toEqual([Number(next0)]);
      expect(ev.outputCompressedAccounts[0].compressedAccount.owner.toBase58()).toBe(COMPRESSED_TOKEN_PROGRAM);
      // The minted supply sits in the token pool.
      expect(await splAmount(pool.splInterfacePda)).toBe(1_000_000n);
      minted = { leafIndex: ev.outputLeafIndices[0], amount: 1_000_000n };
    });

    it('mints compressed tokens into a V1 tree too', async () => {
      const [pool] = await getSplInterfaceInfos(rpc, mint.publicKey);
      const next0 = await v1Next(V1);
      const tx = await send([await CompressedTokenProgram.mintTo({
        feePayer: payer.publicKey, mint: mint.publicKey, authority: payer.publicKey, toPubkey: [bob.publicKey, payer.publicKey],
        amount: [5, 7], outputStateTreeInfo: V1, tokenPoolInfo: pool,
      })]);
      expectLightPath(tx, 2);
      expect(await v1Next(V1)).toBe(next0 + 2n);
      expect(lightEvent(tx).outputLeafIndices).toEqual([Number(next0), Number(next0) + 1]);
    });

    it('transfers compressed tokens out of the V2 queue by index (no proof)', async () => {
      expect(minted).toBeDefined();
      const [next0, tree0] = [await v2Next(V2), await data(V2.tree)];
      const tx = await send([await CompressedTokenProgram.transfer({
        payer: payer.publicKey,
        inputCompressedTokenAccounts: [{
          compressedAccount: {
            owner: new PublicKey(COMPRESSED_TOKEN_PROGRAM), lamports: bn(0), address: null, data: null,
            treeInfo: V2, hash: bn(0), leafIndex: minted!.leafIndex, proveByIndex: true, readOnly: false,
          },
          parsed: { mint: mint.publicKey, owner: payer.publicKey, amount: bn(minted!.amount.toString()), delegate: null, state: 1, tlv: null },
        }],
        toAddress: bob.publicKey, amount: 250_000, recentValidityProof: null, recentInputStateRootIndices: [0],
      })]);
      const logs = tx.meta!.logMessages!;
      expect(logs[logs.indexOf(`Program ${COMPRESSED_TOKEN_PROGRAM} invoke [1]`) + 1]).toBe('Program log: Instruction: Transfer');
      expectLightPath(tx, 2);
      expect(await v2Next(V2)).toBe(next0 + 2n);
      expect(equal(await data(V2.tree), tree0)).toBe(false);
      const ev = lightEvent(tx);
      expect(ev.inputCompressedAccountHashes).toHaveLength(1);
      expect(ev.outputLeafIndices).toEqual([Number(next0), Number(next0) + 1]);
    });

    it('lists every Light transaction under the account compression program (getSignaturesForAddress)', async () => {
      const sigs = await rpc.getSignaturesForAddress(new PublicKey(ACCOUNT_COMPRESSION_PROGRAM));
      expect(sigs.length).toBeGreaterThanOrEqual(6);
      expect(sigs.every((s) => s.err === null)).toBe(true);
    });
  });
});

describe('localnet with Light programs: solgate @solana/kit builders over JSON-RPC', () => {
  it('compress SOL (V1 + V2), transfer it by index, create a mint, mintTo and transfer compressed tokens by index', async () => {
    const seed = crypto.getRandomValues(new Uint8Array(32));
    const alice = await createKeyPairSignerFromPrivateKeyBytes(seed);
    const bob = Keypair.generate().publicKey.toBase58();
    await rpc.requestAirdrop(new PublicKey(alice.address), 20 * LAMPORTS_PER_SOL);
    net.chain.produceSlot();
    const tree = LIGHT_STATE_TREES_V2[1]; // bmt2 / oq2: a tree the first suite left alone
    expect(DEFAULT_STATE_TREE_V2.queue).toBe(V2.queue.toBase58());

    const v1Before = v1StateTreeNextIndex(await data(DEFAULT_STATE_TREE_V1.tree));
    let tx = await sendKit(alice, [getCompressSolInstruction({ payer: alice, lamports: 4_000_000n, outputTree: DEFAULT_STATE_TREE_V1 })]);
    expectLightPath(tx, 1);
    expect(v1StateTreeNextIndex(await data(DEFAULT_STATE_TREE_V1.tree))).toBe(v1Before + 1n);

    const q0 = v2OutputQueueCounters(await data(tree.queue)).nextIndex;
    tx = await sendKit(alice, [getCompressSolInstruction({ payer: alice, lamports: 5_000_000n, outputTree: tree })]);
    expectLightPath(tx, 1);
    let ev = lightEvent(tx);
    expect(ev.outputLeafIndices).toEqual([Number(q0)]);
    expect(ev.outputCompressedAccounts[0].compressedAccount.owner.toBase58()).toBe(alice.address);
    expect(ev.outputCompressedAccounts[0].compressedAccount.lamports.toString()).toBe('5000000');

    tx = await sendKit(alice, [getTransferCompressedSolByIndexInstruction({
      payer: alice, owner: alice, from: { leafIndex: Number(q0), tree, lamports: 5_000_000n }, recipient: bob, lamports: 1_000_000n,
    })]);
    expectLightPath(tx, 1);
    ev = lightEvent(tx);
    expect(ev.inputCompressedAccountHashes).toHaveLength(1);
    expect(ev.outputCompressedAccounts.map((o) => [o.compressedAccount.owner.toBase58(), o.compressedAccount.lamports.toString()])).toEqual([
      [alice.address, '4000000'], [bob, '1000000'],
    ]);

    const mintSeed = crypto.getRandomValues(new Uint8Array(32));
    const mint = await createKeyPairSignerFromPrivateKeyBytes(mintSeed);
    const rent = BigInt(await rpc.getMinimumBalanceForRentExemption(82));
    tx = await sendKit(alice, await getCreateCompressedMintInstructions({ payer: alice, mint, mintAuthority: alice.address, decimals: 2, rentLamports: rent }));
    const pool = await getCompressedTokenPoolAddress(mint.address);
    expect((await rpc.getAccountInfo(new PublicKey(pool)))?.owner.toBase58()).toBe('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');

    const m0 = v2OutputQueueCounters(await data(tree.queue)).nextIndex;
    tx = await sendKit(alice, [await getCompressedMintToInstruction({
      payer: alice, mint: mint.address, mintAuthority: alice, recipients: [{ owner: alice.address, amount: 900n }, { owner: bob, amount: 100n }], outputTree: tree,
    })]);
    expectLightPath(tx, 2);
    ev = lightEvent(tx);
    expect(ev.outputLeafIndices).toEqual([Number(m0), Number(m0) + 1]);
    expect(await splAmount(pool)).toBe(1000n);

    tx = await sendKit(alice, [getTransferCompressedTokensByIndexInstruction({
      payer: alice, owner: alice, mint: mint.address, from: { leafIndex: Number(m0), tree, amount: 900n }, recipient: bob, amount: 300n,
    })]);
    expectLightPath(tx, 2);
    ev = lightEvent(tx);
    expect(ev.inputCompressedAccountHashes).toHaveLength(1);
    expect(ev.outputLeafIndices).toEqual([Number(m0) + 2, Number(m0) + 3]);
    expect(ev.outputCompressedAccounts.every((o) => o.compressedAccount.owner.toBase58() === COMPRESSED_TOKEN_PROGRAM)).toBe(true);
  });
});
