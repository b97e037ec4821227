/**
 * Demo workload for the localnet: a few wallets funded from the faucet, an SPL Token mint and a Token-2022
 * mint (transfer-fee config + metadata pointer + on-mint metadata), their ATAs, then a steady trickle of SOL
 * transfers and `transferChecked` token transfers (some as v0 transactions through an address lookup table),
 * with an occasional failing transfer (more than the balance) that lands with `meta.err` and a charged fee.
 * On a chain with the Light genesis it also does ZK Compression activity (compressed SOL and tokens, V1 and
 * V2 trees; `demo-light.ts`), one compressed transaction every fourth transfer.
 * Every transaction is built with @solana/kit and the @solana-program/* instruction builders.
 */
import { generateKeyPairSigner, type Address, type Instruction, type KeyPairSigner } from '@solana/kit';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import * as spl from '@solana-program/token';
import * as t22 from '@solana-program/token-2022';
import { getCreateLookupTableInstruction, getExtendLookupTableInstruction } from './alt.js';
import type { LocalChain } from './chain.js';
import { buildWireTransaction, demoClient, type DemoClient } from './demo-client.js';
import { hasLightPrograms, startLightDemo, type DemoLog, type LightDemo, type LightDemoInfo, type LightDemoOptions } from './demo-light.js';

export { buildWireTransaction } from './demo-client.js';
export type { LightDemoInfo, LightDemoOptions, LightDemoStats } from './demo-light.js';

export interface DemoOptions {
  /** Number of wallets (>= 2). Default 4. */
  wallets?: number;
  /** Delay between transfers in ms. Default 500. */
  intervalMs?: number;
  /** Fraction of transfers built to fail. Default 0.1. */
  failureRate?: number;
  /** SOL given to each wallet. Default 100. */
  solPerWallet?: number;
  /**
   * ZK Compression activity (`demo-light.ts`): true requires the Light genesis on the chain, false never does it;
   * unset (default) = when the chain has the Light programs and trees (`light: true`).
   */
  light?: boolean;
  /** Options of the compressed activity (the V2 output budget per queue). */
  lightOptions?: LightDemoOptions;
  /** Progress lines; `level` is unset for routine ones, 'info'/'warn' for those a user should see. */
  log?: DemoLog;
}

export interface DemoWorkload {
  readonly wallets: Address[];
  readonly mints: { splToken: Address; token2022: Address };
  readonly lookupTable: Address;
  /** Counters of submitted transactions. */
  readonly stats: { sent: number; failedOnPurpose: number; errors: number };
  /** The compressed activity (mint, counters, V2 queues still open), or null when it is off. */
  readonly light: LightDemoInfo | null;
  stop(): Promise<void>;
}

const SLOT_HASHES_SYSVAR = 'SysvarS1otHashes111111111111111111111111111';

/**
 * The newest slot of the SlotHashes sysvar (a lookup table's `recentSlot` must be listed there): a chain that
 * started at slot N > 0 lists no slot of its own until it produces one, so `getSlot` is not always usable.
 * Layout: u64 count, then (u64 slot, 32-byte hash) entries, newest first.
 */
async function recentSlot(client: DemoClient): Promise<bigint> {
  const sysvar = await client.account(SLOT_HASHES_SYSVAR);
  if (sysvar && sysvar.data.length >= 16) {
    const view = new DataView(sysvar.data.buffer, sysvar.data.byteOffset, sysvar.data.byteLength);
    if (view.getBigUint64(0, true) > 0n) return view.getBigUint64(8, true);
  }
  return BigInt(await client.slot());
}

const SPL_DECIMALS = 6;
const T22_DECIMALS = 9;

/** Sets everything up (awaited), then keeps sending transfers until `stop()`. */
export async function startDemoWorkload(target: LocalChain | string, opts: DemoOptions = {}): Promise<DemoWorkload> {
  const client = demoClient(target);
  const log = opts.log ?? (() => {});
  const n = Math.max(2, opts.wallets ?? 4);
  const wallets = await Promise.all(Array.from({ length: n }, () => generateKeyPairSigner()));
  const admin = wallets[0];
  const send = async (payer: KeyPairSigner, instructions: Instruction[], o: { skipPreflight?: boolean; version?: 'legacy' | 0; lookupTables?: Record<Address, Address[]> } = {}) => {
    const { blockhash, lastValidBlockHeight } = await client.latestBlockhash();
    const wire = await buildWireTransaction({ feePayer: payer, instructions, blockhash, lastValidBlockHeight, version: o.version, lookupTables: o.lookupTables });
    return client.send(wire, o.skipPreflight ?? false);
  };

  for (const w of wallets) await client.airdrop(w.address, BigInt(Math.round((opts.solPerWallet ?? 100) * 1e9)));

  // SPL Token mint.
  const splMint = await generateKeyPairSigner();
  await send(admin, [
    getCreateAccountInstruction({ payer: admin, newAccount: splMint, lamports: await client.rent(82), space: 82, programAddress: spl.TOKEN_PROGRAM_ADDRESS }),
    spl.getInitializeMint2Instruction({ mint: splMint.address, decimals: SPL_DECIMALS, mintAuthority: admin.address }),
  ]);

  // Token-2022 mint with a transfer fee (0.5%, capped), a metadata pointer to itself and the metadata on the mint.
  const t22Mint = await generateKeyPairSigner();
  const extensions = [
    t22.extension('TransferFeeConfig', {
      transferFeeConfigAuthority: admin.address, withdrawWithheldAuthority: admin.address, withheldAmount: 0n,
      olderTransferFee: { epoch: 0n, maximumFee: 1_000_000n, transferFeeBasisPoints: 50 },
      newerTransferFee: { epoch: 0n, maximumFee: 1_000_000n, transferFeeBasisPoints: 50 },
    }),
    t22.extension('MetadataPointer', { authority: admin.address, metadataAddress: t22Mint.address }),
  ];
  const metadata = t22.extension('TokenMetadata', {
    updateAuthority: admin.address, mint: t22Mint.address, name: 'Solgate Demo', symbol: 'SGD',
    uri: 'https://example.com/sgd.json', additionalMetadata: new Map(),
  });
  const space = t22.getMintSize(extensions);
  await send(admin, [
    // Rent for the final size (metadata reallocates), space for the fixed-size extensions only.
    getCreateAccountInstruction({ payer: admin, newAccount: t22Mint, lamports: await client.rent(t22.getMintSize([...extensions, metadata])), space, programAddress: t22.TOKEN_2022_PROGRAM_ADDRESS }),
    ...t22.getPreInitializeInstructionsForMintExtensions(t22Mint.address, extensions),
    t22.getInitializeMintInstruction({ mint: t22Mint.address, decimals: T22_DECIMALS, mintAuthority: admin.address }),
    ...t22.getPostInitializeInstructionsForMintExtensions(t22Mint.address, admin, [metadata]),
  ]);

  // ATAs and initial supply for every wallet.
  const splAtas: Address[] = [];
  const t22Atas: Address[] = [];
  for (const w of wallets) {
    const [a] = await spl.findAssociatedTokenPda({ owner: w.address, mint: splMint.address, tokenProgram: spl.TOKEN_PROGRAM_ADDRESS });
    const [b] = await t22.findAssociatedTokenPda({ owner: w.address, mint: t22Mint.address, tokenProgram: t22.TOKEN_2022_PROGRAM_ADDRESS });
    splAtas.push(a);
    t22Atas.push(b);
    await send(admin, [
      spl.getCreateAssociatedTokenIdempotentInstruction({ payer: admin, ata: a, owner: w.address, mint: splMint.address }),
      t22.getCreateAssociatedTokenIdempotentInstruction({ payer: admin, ata: b, owner: w.address, mint: t22Mint.address }),
      spl.getMintToCheckedInstruction({ mint: splMint.address, token: a, mintAuthority: admin, amount: 1_000_000n * 10n ** BigInt(SPL_DECIMALS), decimals: SPL_DECIMALS }),
      t22.getMintToCheckedInstruction({ mint: t22Mint.address, token: b, mintAuthority: admin, amount: 1_000_000n * 10n ** BigInt(T22_DECIMALS), decimals: T22_DECIMALS }),
    ]);
  }

  // A lookup table holding the wallets, ATAs and mints (usable from the slot after the extension).
  const created = await getCreateLookupTableInstruction({ authority: admin.address, payer: admin.address, recentSlot: await recentSlot(client) });
  const tableAddresses = [...wallets.map((w) => w.address), ...splAtas, ...t22Atas, splMint.address, t22Mint.address];
  await send(admin, [created.instruction, getExtendLookupTableInstruction({ table: created.table, authority: admin.address, payer: admin.address, addresses: tableAddresses })]);
  const tableReadyAfter = await client.slot();
  const lookupTables = { [created.table]: tableAddresses } as Record<Address, Address[]>;
  let light: LightDemo | null = null;
  const withLight = opts.light ?? (await hasLightPrograms(client));
  if (withLight) {
    if (opts.light && !(await hasLightPrograms(client))) throw new Error('demo: light requested but the chain has no Light programs and trees (start it with light: true)');
    light = await startLightDemo({ client, send: (payer, instructions) => send(payer, instructions), wallets, log }, opts.lightOptions);
  }
  log('demo workload ready', {
    wallets: wallets.map((w) => w.address), splMint: splMint.address, token2022Mint: t22Mint.address, lookupTable: created.table,
    compressedMint: light?.info.mint ?? null,
  });

  const stats = { sent: 0, failedOnPurpose: 0, errors: 0 };
  const failureRate = opts.failureRate ?? 0.1;
  const rand = (k: number) => Math.floor(Math.random() * k);
  let round = 0;
  const tick = async () => {
    const i = rand(n);
    const j = (i + 1 + rand(n - 1)) % n;
    const from = wallets[i];
    const kind = round++ % (light ? 4 : 3);
    if (kind === 3) {
      await light!.tick();
      stats.sent++;
      return;
    }
    const fail = Math.random() < failureRate;
    const useTable = (await client.slot()) > tableReadyAfter;
    if (kind === 0) {
      const amount = fail ? 10n ** 18n : BigInt(1_000 + rand(1_000_000));
      await send(from, [getTransferSolInstruction({ source: from, destination: wallets[j].address, amount })], { skipPreflight: fail });
    } else if (kind === 1) {
      const amount = fail ? 10n ** 18n : BigInt(1 + rand(10 ** SPL_DECIMALS));
      await send(from, [spl.getTransferCheckedInstruction({ source: splAtas[i], mint: splMint.address, destination: splAtas[j], authority: from, amount, decimals: SPL_DECIMALS })], { skipPreflight: fail });
    } else {
      const amount = fail ? 10n ** 18n : BigInt(1 + rand(10 ** T22_DECIMALS));
      await send(from, [t22.getTransferCheckedInstruction({ source: t22Atas[i], mint: t22Mint.address, destination: t22Atas[j], authority: from, amount, decimals: T22_DECIMALS })], {
        skipPreflight: fail, version: 0, lookupTables: useTable ? lookupTables : undefined,
      });
    }
    stats.sent++;
    if (fail) stats.failedOnPurpose++;
  };

  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let inFlight: Promise<void> = Promise.resolve();
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      inFlight = tick()
        .catch((e: unknown) => {
          stats.errors++;
          log('demo transfer failed', { error: String(e) });
        })
        .finally(schedule);
    }, opts.intervalMs ?? 500);
  };
  schedule();

  return {
    wallets: wallets.map((w) => w.address),
    mints: { splToken: splMint.address, token2022: t22Mint.address },
    lookupTable: created.table,
    stats,
    light: light?.info ?? null,
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await inFlight;
    },
  };
}
