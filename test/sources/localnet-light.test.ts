/**
 * Light Protocol genesis on the built-in localnet (`light: true`): what is loaded and from where, that it
 * matches what `light test-validator` loads and the tree set the official SDK expects, that solgate's
 * @solana/kit builders encode exactly what the SDK builders encode, what the V2 queues hold without a forester,
 * and that the Light state survives snapshots. The JSON-RPC round trips are in test/e2e/localnet-light.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PublicKey, type TransactionInstruction } from '@solana/web3.js';
import {
  LightSystemProgram, TreeType, bn, getAccountCompressionAuthority, getRegisteredProgramPda,
  localTestActiveStateTreeInfos, type TreeInfo,
} from '@lightprotocol/stateless.js';
import { CompressedTokenProgram } from '@lightprotocol/compressed-token';
import {
  AccountRole, address, createKeyPairSignerFromPrivateKeyBytes, getProgramDerivedAddress,
  type Instruction, type KeyPairSigner,
} from '@solana/kit';
import { LocalChain } from '../../src/sources/localnet/index.js';
import { buildWireTransaction } from '../../src/sources/localnet/demo.js';
import {
  ACCOUNT_COMPRESSION_PROGRAM, COMPRESSED_TOKEN_CPI_AUTHORITY, COMPRESSED_TOKEN_PROGRAM, DEFAULT_STATE_TREE_V1,
  DEFAULT_STATE_TREE_V2, LIGHT_ACCOUNT_COMPRESSION_AUTHORITY, LIGHT_ADDRESS_TREE_V1, LIGHT_ADDRESS_TREE_V2,
  LIGHT_NOOP_PROGRAM, LIGHT_PROGRAMS, LIGHT_REGISTERED_PROGRAM_PDA, LIGHT_REGISTRY_PROGRAM, LIGHT_SOL_POOL_PDA,
  LIGHT_STATE_TREES_V1, LIGHT_STATE_TREES_V2, LIGHT_SYSTEM_PROGRAM, hasLightGenesis, lightCliPackageDir, readLightGenesis,
  v1StateTreeNextIndex, v2OutputQueueCounters, type LightStateTree,
} from '../../src/sources/localnet/light.js';
import {
  getCompressSolInstruction, getCompressedMintToInstruction, getCompressedTokenPoolAddress,
  getCreateCompressedMintInstructions, getTransferCompressedSolByIndexInstruction,
  getTransferCompressedTokensByIndexInstruction,
} from '../../src/sources/localnet/light-instructions.js';

const BPF_UPGRADEABLE_LOADER = 'BPFLoaderUpgradeab1e11111111111111111111111';
const pkg = lightCliPackageDir();

interface Dump { file: string; pubkey: string; account: { lamports: number; data: [string, string]; owner: string; executable: boolean } }
const dumps: Dump[] = readdirSync(join(pkg, 'accounts')).filter((f) => f.endsWith('.json')).sort()
  .map((file) => ({ file, ...(JSON.parse(readFileSync(join(pkg, 'accounts', file), 'utf8')) as Omit<Dump, 'file'>) }));

const signerFrom = (n: number): Promise<KeyPairSigner> => createKeyPairSignerFromPrivateKeyBytes(new Uint8Array(32).fill(n));

describe('Light genesis files (@lightprotocol/zk-compression-cli)', () => {
  it('maps program files to ids exactly as the CLI test-validator does (initTestEnv SYSTEM_PROGRAMS → --bpf-program)', () => {
    const src = readFileSync(join(pkg, 'dist', 'utils', 'initTestEnv.js'), 'utf8');
    const block = src.slice(src.indexOf('exports.SYSTEM_PROGRAMS = ['), src.indexOf('];', src.indexOf('exports.SYSTEM_PROGRAMS = [')));
    const cli = [...block.matchAll(/id:\s*"(\w+)",\s*name:\s*"([\w.]+)"/g)].map((m) => ({ programId: m[1], file: m[2] }));
    expect(cli).toHaveLength(5);
    expect(LIGHT_PROGRAMS.map(({ programId, file }) => ({ programId, file }))).toEqual(cli);
    expect(src).toContain('solanaArgs.push("--bpf-program", program.id, localFilePath)');
    expect(src).toContain('"--account-dir", accountsPath');
    const ids = LIGHT_PROGRAMS.map((p) => p.programId);
    expect(ids).toEqual([LIGHT_NOOP_PROGRAM, LIGHT_SYSTEM_PROGRAM, COMPRESSED_TOKEN_PROGRAM, ACCOUNT_COMPRESSION_PROGRAM, LIGHT_REGISTRY_PROGRAM]);
  });

  it('reads every bin/*.so and every accounts/*.json; duplicate pubkeys resolve to the later file (current layouts)', () => {
    const g = readLightGenesis();
    expect(g.packageDir).toBe(pkg);
    expect(g.unknownPrograms).toEqual([]);
    const sos = readdirSync(join(pkg, 'bin')).filter((f) => f.endsWith('.so')).sort();
    expect(g.programs.map((p) => p.path.slice(p.path.lastIndexOf('/') + 1)).sort()).toEqual(sos);
    for (const p of g.programs) expect(Buffer.from(p.bytes).equals(readFileSync(p.path))).toBe(true);

    const pubkeys = new Set(dumps.map((d) => d.pubkey));
    expect(g.accounts.map((a) => a.pubkey).sort()).toEqual([...pubkeys].sort());
    expect(g.replaced.length).toBe(dumps.length - pubkeys.size);
    expect(g.replaced.map((r) => r.pubkey).sort()).toEqual([
      'cpi2cdhkH5roePvcudTgUL8ppEBfTay1desGh8G8QxK', 'nfq2hgS7NYemXsFaFUCe3EMXSDSfnZnAe27jC6aPP1X', 'smt2rJAFdyJJupwMKAqTNAJwvjhmiZ4JYGZmbVRw1Ho',
    ]);
    for (const r of g.replaced) expect(r.file.includes('_2_') && !r.by.includes('_2_'), r.file).toBe(true);
    // The tree/queue duplicates are the same bytes; the CPI-context one is a legacy layout, replaced by the current one.
    const byFile = new Map(dumps.map((d) => [d.file, d]));
    for (const r of g.replaced.filter((x) => !x.pubkey.startsWith('cpi'))) {
      expect(byFile.get(r.file)!.account.data[0]).toBe(byFile.get(r.by)!.account.data[0]);
    }
    const cpi2 = g.accounts.find((a) => a.pubkey === 'cpi2cdhkH5roePvcudTgUL8ppEBfTay1desGh8G8QxK')!;
    expect(Array.from(cpi2.data.subarray(0, 8))).toEqual([34, 184, 183, 14, 100, 80, 183, 124]); // CpiContextAccount2
    expect(cpi2.data.length).toBe(g.accounts.find((a) => a.pubkey === DEFAULT_STATE_TREE_V1.cpiContext)!.data.length);
  });

  it('the exported tree sets and PDAs are the ones stateless.js uses on localnet, and exist in genesis', async () => {
    const infos = localTestActiveStateTreeInfos();
    const asTree = (i: TreeInfo, version: 1 | 2): LightStateTree => ({ version, tree: i.tree.toBase58(), queue: i.queue.toBase58(), cpiContext: i.cpiContext!.toBase58() });
    expect(LIGHT_STATE_TREES_V1).toEqual(infos.filter((i) => i.treeType === TreeType.StateV1).map((i) => asTree(i, 1)));
    expect(LIGHT_STATE_TREES_V2).toEqual(infos.filter((i) => i.treeType === TreeType.StateV2).map((i) => asTree(i, 2)));
    expect(DEFAULT_STATE_TREE_V1).toBe(LIGHT_STATE_TREES_V1[0]);
    expect(DEFAULT_STATE_TREE_V2).toBe(LIGHT_STATE_TREES_V2[0]);
    const addressV2 = infos.find((i) => i.treeType === TreeType.AddressV2)!;
    expect(LIGHT_ADDRESS_TREE_V2).toEqual({ tree: addressV2.tree.toBase58(), queue: addressV2.queue.toBase58() });
    expect(LIGHT_ADDRESS_TREE_V1.tree).toBe('amt1Ayt45jfbdw5YSo7iz6WZxUmnZsQTYXy82hVwyC2');

    const inGenesis = new Set(dumps.map((d) => d.pubkey));
    for (const t of [...LIGHT_STATE_TREES_V1, ...LIGHT_STATE_TREES_V2]) for (const a of [t.tree, t.queue, t.cpiContext]) expect(inGenesis.has(a), a).toBe(true);
    for (const a of [LIGHT_ADDRESS_TREE_V1.tree, LIGHT_ADDRESS_TREE_V1.queue, LIGHT_ADDRESS_TREE_V2.tree, LIGHT_REGISTERED_PROGRAM_PDA]) expect(inGenesis.has(a), a).toBe(true);

    const pda = async (seed: string, program: string) => (await getProgramDerivedAddress({ programAddress: address(program), seeds: [new TextEncoder().encode(seed)] }))[0];
    expect(await pda('cpi_authority', LIGHT_SYSTEM_PROGRAM)).toBe(LIGHT_ACCOUNT_COMPRESSION_AUTHORITY);
    expect(LIGHT_ACCOUNT_COMPRESSION_AUTHORITY).toBe(getAccountCompressionAuthority().toBase58());
    expect(await pda('sol_pool_pda', LIGHT_SYSTEM_PROGRAM)).toBe(LIGHT_SOL_POOL_PDA);
    expect(LIGHT_SOL_POOL_PDA).toBe(LightSystemProgram.deriveCompressedSolPda().toBase58());
    expect(await pda('cpi_authority', COMPRESSED_TOKEN_PROGRAM)).toBe(COMPRESSED_TOKEN_CPI_AUTHORITY);
    expect(LIGHT_REGISTERED_PROGRAM_PDA).toBe(getRegisteredProgramPda().toBase58());
    const mint = (await signerFrom(9)).address;
    expect(await getCompressedTokenPoolAddress(mint)).toBe(CompressedTokenProgram.deriveSplInterfacePdaWithIndex(new PublicKey(mint), 0)[0].toBase58());
  });
});

describe('LocalChain light option', () => {
  let chain: LocalChain;
  beforeAll(async () => {
    chain = await LocalChain.create({ slotMs: 0, light: true });
  });
  afterAll(() => chain?.stop());

  it('is off by default: a plain chain has no Light program or tree', async () => {
    const plain = await LocalChain.create({ slotMs: 0 });
    expect(plain.light).toBeNull();
    expect(plain.getAccount(LIGHT_SYSTEM_PROGRAM)).toBeNull();
    expect(plain.getAccount(DEFAULT_STATE_TREE_V2.tree)).toBeNull();
    expect(hasLightGenesis(plain)).toBe(false);
    expect(hasLightGenesis(chain)).toBe(true);
  });

  it('loads every program (executable, at its id) and every genesis account byte for byte before the first slot', () => {
    expect(chain.slot).toBe(0);
    const summary = chain.light!;
    expect(summary.programs.map((p) => p.programId)).toEqual(LIGHT_PROGRAMS.map((p) => p.programId));
    for (const p of LIGHT_PROGRAMS) {
      const acc = chain.getAccount(p.programId);
      expect(acc?.executable, p.file).toBe(true);
      expect(acc?.owner).toBe(BPF_UPGRADEABLE_LOADER);
    }
    const winners = new Map(dumps.map((d) => [d.pubkey, d])); // name order, later file wins
    expect(summary.accounts).toHaveLength(winners.size);
    for (const d of winners.values()) {
      const acc = chain.getAccount(d.pubkey)!;
      expect(acc, d.file).not.toBeNull();
      expect(acc.lamports).toBe(BigInt(d.account.lamports));
      expect(acc.owner).toBe(d.account.owner);
      expect(acc.executable).toBe(d.account.executable);
      expect(Buffer.from(acc.data).equals(Buffer.from(d.account.data[0], 'base64')), d.file).toBe(true);
    }
    expect(summary.readMs).toBeGreaterThan(0);
    expect(summary.installMs).toBeGreaterThan(0);
  });

  it('genesis trees are empty: V1 next index 0, V2 output queues hold 0 of 100 (2 batches × 50)', () => {
    for (const t of LIGHT_STATE_TREES_V1) expect(v1StateTreeNextIndex(chain.getAccount(t.tree)!.data)).toBe(0n);
    for (const t of LIGHT_STATE_TREES_V2) {
      expect(v2OutputQueueCounters(chain.getAccount(t.queue)!.data)).toEqual({ nextIndex: 0n, batchSize: 50n, capacity: 100n });
    }
  });

  it('a V2 output queue takes 100 outputs and then refuses more (no forester empties it)', async () => {
    const payer = await signerFrom(1);
    await chain.requestAirdrop(payer.address, 1_000_000_000_000n);
    chain.produceSlot();
    const tree = LIGHT_STATE_TREES_V2[4];
    const send = async (ixs: Instruction[]) => {
      const wire = await buildWireTransaction({ feePayer: payer, instructions: ixs, blockhash: chain.latestBlockhash().blockhash });
      const out = chain.sendTransaction(wire, { skipPreflight: true });
      if (out.kind !== 'committed') throw new Error(out.kind);
      return out.tx;
    };
    for (let i = 0; i < 100; i++) {
      const tx = await send([getCompressSolInstruction({ payer, lamports: 1_000_000n + BigInt(i), outputTree: tree })]);
      expect(tx.meta.err, String(i)).toBeNull();
      if (i % 20 === 19) chain.produceSlot();
    }
    expect(v2OutputQueueCounters(chain.getAccount(tree.queue)!.data).nextIndex).toBe(100n);
    const full = await send([getCompressSolInstruction({ payer, lamports: 2_000_000n, outputTree: tree })]);
    expect(full.meta.err).toEqual({ InstructionError: [0, { Custom: 14301 }] });
    // Spends by index still work while the values sit in the full queue (their nullifiers go to the tree).
    const spend = await send([getTransferCompressedSolByIndexInstruction({
      payer, owner: payer, from: { leafIndex: 0, tree, lamports: 1_000_000n }, recipient: payer.address, lamports: 1_000_000n,
    })]);
    expect(spend.meta.err).toEqual({ InstructionError: [0, { Custom: 14301 }] }); // …but their outputs have nowhere to go
    chain.produceSlot();
  });

  it('keeps the Light programs and tree state across a snapshot and a recycle', async () => {
    const payer = await signerFrom(2);
    await chain.requestAirdrop(payer.address, 10_000_000_000n);
    chain.produceSlot();
    const tree = LIGHT_STATE_TREES_V2[3];
    const send = async (c: LocalChain, ixs: Instruction[]) => {
      const wire = await buildWireTransaction({ feePayer: payer, instructions: ixs, blockhash: c.latestBlockhash().blockhash });
      const out = c.sendTransaction(wire);
      expect(out.kind).toBe('committed');
      if (out.kind !== 'committed') throw new Error(out.kind);
      expect(out.tx.meta.err, out.tx.meta.logMessages.join('\n')).toBeNull();
      c.produceSlot();
      return out.tx;
    };
    await send(chain, [getCompressSolInstruction({ payer, lamports: 7_000_000n, outputTree: tree })]);
    chain.recycle();
    const restored = await LocalChain.fromSnapshot(chain.snapshot(), { slotMs: 0, light: true });
    try {
      expect(restored.light).toBeNull(); // the snapshot carried the state; nothing was re-installed
      expect(hasLightGenesis(restored)).toBe(true);
      expect(v2OutputQueueCounters(restored.getAccount(tree.queue)!.data).nextIndex).toBe(1n);
      await send(restored, [getTransferCompressedSolByIndexInstruction({
        payer, owner: payer, from: { leafIndex: 0, tree, lamports: 7_000_000n }, recipient: payer.address, lamports: 7_000_000n,
      })]);
      expect(v2OutputQueueCounters(restored.getAccount(tree.queue)!.data).nextIndex).toBe(2n);
    } finally {
      restored.stop();
    }
  });
});

/** Kit instruction vs SDK instruction: same program, data and account list; the SDKs mark an absent optional
 * account (filled with the invoked program's id) writable, the kit builders read-only — the only difference allowed. */
function expectSameInstruction(kit: Instruction, sdk: TransactionInstruction): void {
  expect(kit.programAddress).toBe(sdk.programId.toBase58());
  expect(Buffer.from(kit.data!).toString('hex')).toBe(Buffer.from(sdk.data).toString('hex'));
  const kitAccounts = kit.accounts!.map((a) => [a.address, a.role] as const);
  const sdkAccounts = sdk.keys.map((k) => [k.pubkey.toBase58(), (k.isSigner ? 2 : 0) | (k.isWritable ? 1 : 0)] as const);
  expect(kitAccounts.map(([a]) => a)).toEqual(sdkAccounts.map(([a]) => a));
  kitAccounts.forEach(([a, role], i) => {
    const sdkRole = sdkAccounts[i][1];
    if (a === kit.programAddress && sdkRole === AccountRole.WRITABLE) expect(role, `${i} ${a}`).toBe(AccountRole.READONLY);
    else expect(role, `${i} ${a}`).toBe(sdkRole);
  });
}

describe('@solana/kit builders encode what the Light SDK builders encode', () => {
  const infos = localTestActiveStateTreeInfos();
  const V1 = infos.find((i) => i.treeType === TreeType.StateV1)!;
  const V2 = infos.find((i) => i.treeType === TreeType.StateV2)!;

  it('compress SOL (V1 and V2 trees)', async () => {
    const payer = await signerFrom(3);
    const to = (await signerFrom(4)).address;
    for (const [info, tree] of [[V1, DEFAULT_STATE_TREE_V1], [V2, DEFAULT_STATE_TREE_V2]] as const) {
      expectSameInstruction(
        getCompressSolInstruction({ payer, lamports: 123_456_789n, recipient: to, outputTree: tree }),
        await LightSystemProgram.compress({ payer: new PublicKey(payer.address), toAddress: new PublicKey(to), lamports: 123_456_789, outputStateTreeInfo: info }),
      );
    }
  });

  it('transfer compressed SOL by index (V2), with and without change', async () => {
    const owner = await signerFrom(5);
    const to = (await signerFrom(6)).address;
    for (const amount of [400n, 1000n]) {
      const input = {
        owner: new PublicKey(owner.address), lamports: bn(1000), address: null, data: null, treeInfo: V2, hash: bn(0), leafIndex: 17, proveByIndex: true, readOnly: false,
      };
      expectSameInstruction(
        getTransferCompressedSolByIndexInstruction({ payer: owner, owner, from: { leafIndex: 17, tree: DEFAULT_STATE_TREE_V2, lamports: 1000n }, recipient: to, lamports: amount }),
        await LightSystemProgram.transfer({
          payer: new PublicKey(owner.address), inputCompressedAccounts: [input], toAddress: new PublicKey(to), lamports: Number(amount),
          recentInputStateRootIndices: [0], recentValidityProof: null,
        }),
      );
    }
    const v1Input = { leafIndex: 0, tree: DEFAULT_STATE_TREE_V1, lamports: 1n };
    expect(() => getTransferCompressedSolByIndexInstruction({ payer: owner, owner, from: v1Input, recipient: to, lamports: 1n })).toThrow(/V2 tree/);
  });

  it('create mint + token pool, and mintTo (V1 and V2)', async () => {
    const payer = await signerFrom(7);
    const mint = await signerFrom(8);
    const kit = await getCreateCompressedMintInstructions({ payer, mint, mintAuthority: payer.address, decimals: 9, rentLamports: 1_461_600n });
    const sdk = await CompressedTokenProgram.createMint({
      feePayer: new PublicKey(payer.address), mint: new PublicKey(mint.address), authority: new PublicKey(payer.address),
      freezeAuthority: null, decimals: 9, rentExemptBalance: 1_461_600,
    });
    expect(kit).toHaveLength(3);
    expectSameInstruction(kit[0], sdk[0]); // system createAccount
    expectSameInstruction(kit[1], sdk[1]); // SPL Token initializeMint2
    expectSameInstruction(kit[2], sdk[2]); // compressed token create_token_pool

    const pool = await getCompressedTokenPoolAddress(mint.address);
    const tokenPoolInfo = {
      mint: new PublicKey(mint.address), tokenPoolPda: new PublicKey(pool), splInterfacePda: new PublicKey(pool),
      tokenProgram: new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'), isInitialized: true, balance: bn(0), poolIndex: 0, bump: 255,
    };
    const a = (await signerFrom(10)).address;
    const b = (await signerFrom(11)).address;
    for (const [info, tree] of [[V1, DEFAULT_STATE_TREE_V1], [V2, DEFAULT_STATE_TREE_V2]] as const) {
      expectSameInstruction(
        await getCompressedMintToInstruction({ payer, mint: mint.address, mintAuthority: payer, recipients: [{ owner: a, amount: 5n }, { owner: b, amount: 2n ** 63n }], outputTree: tree }),
        await CompressedTokenProgram.mintTo({
          feePayer: new PublicKey(payer.address), mint: new PublicKey(mint.address), authority: new PublicKey(payer.address),
          toPubkey: [new PublicKey(a), new PublicKey(b)], amount: [bn(5), bn((2n ** 63n).toString())], outputStateTreeInfo: info, tokenPoolInfo,
        }),
      );
    }
  });

  it('transfer compressed tokens by index (V2), with and without change', async () => {
    const owner = await signerFrom(12);
    const mint = (await signerFrom(13)).address;
    const to = (await signerFrom(14)).address;
    for (const amount of [250n, 900n]) {
      expectSameInstruction(
        getTransferCompressedTokensByIndexInstruction({ payer: owner, owner, mint, from: { leafIndex: 42, tree: DEFAULT_STATE_TREE_V2, amount: 900n }, recipient: to, amount }),
        await CompressedTokenProgram.transfer({
          payer: new PublicKey(owner.address),
          inputCompressedTokenAccounts: [{
            compressedAccount: { owner: new PublicKey(COMPRESSED_TOKEN_PROGRAM), lamports: bn(0), address: null, data: null, treeInfo: V2, hash: bn(0), leafIndex: 42, proveByIndex: true, readOnly: false },
            parsed: { mint: new PublicKey(mint), owner: new PublicKey(owner.address), amount: bn(900), delegate: null, state: 1, tlv: null },
          }],
          toAddress: new PublicKey(to), amount: Number(amount), recentValidityProof: null, recentInputStateRootIndices: [0],
        }),
      );
    }
  });
});
