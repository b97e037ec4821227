/**
 * Demo workload for the localnet: a few wallets funded from the faucet, an SPL Token mint and a Token-2022
 * mint (transfer-fee config + metadata pointer + on-mint metadata named as `DEMO_TOKENS.token2022`), their ATAs,
 * a Token-2022 NFT collection with one NFT per wallet (`demo-assets.ts`), then a steady trickle of SOL
 * transfers, `transferChecked` token transfers (some as v0 transactions through an address lookup table) and NFT
 * transfers between the wallets, with an occasional failing transfer (more than the balance) that lands with
 * `meta.err` and a charged fee.
 * On a chain with the Light genesis it also does ZK Compression activity (compressed SOL and tokens, V1 and
 * V2 trees; `demo-light.ts`), one compressed transaction every fifth transaction.
 * Every transaction is built with @solana/kit and the @solana-program/* instruction builders.
 * A stopped workload's `state()` (wallet keys, mints, table, spendable compressed accounts), saved with a chain
 * snapshot, lets `resume` continue it on the restored chain without any setup (`serve --demo` restarts).
 */
import { createKeyPairSignerFromPrivateKeyBytes, generateKeyPairSigner, type Address, type Instruction, type KeyPairSigner } from '@solana/kit';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import * as spl from '@solana-program/token';
import * as t22 from '@solana-program/token-2022';
import { base58ToBytes, bytesToBase58 } from '../../core/encoding.js';
import { getCreateLookupTableInstruction, getExtendLookupTableInstruction } from './alt.js';
import { DEMO_TOKENS, startDemoAssets, type DemoAssets, type DemoAssetsInfo, type DemoAssetsState } from './demo-assets.js';
import type { LocalChain } from './chain.js';
import { buildWireTransaction, demoClient, type DemoClient } from './demo-client.js';
import {
  hasLightPrograms, startLightDemo, type DemoLog, type LightDemo, type LightDemoInfo, type LightDemoOptions, type LightDemoState,
} from './demo-light.js';

export { buildWireTransaction } from './demo-client.js';
export type { LightDemoInfo, LightDemoOptions, LightDemoStats, LightDemoState } from './demo-light.js';
export { DEMO_TOKENS, demoNftName } from './demo-assets.js';
export type { DemoAssetsInfo, DemoAssetsState, DemoTokenName } from './demo-assets.js';

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
  /**
   * Continue a workload saved with `state()` on the same chain state (a chain restored from the snapshot taken
   * together with it): its wallets, mints and lookup table are reused and no setup transaction is sent. `wallets`
   * is then ignored. The compressed activity resumes when `resume.light` is set and Light is on; when Light is
   * on but the saved workload had none, it is set up as on a fresh chain. So are the NFTs when the saved workload
   * has none (saved before they existed).
   */
  resume?: DemoState;
}

/**
 * What a stopped workload needs to continue on a restored chain (JSON). Holds the demo wallets' private keys:
 * localnet play money only.
 */
export interface DemoState {
  version: 1;
  /** Base58 32-byte private keys of the wallets; the first is the mints' authority and the table's. */
  walletKeys: string[];
  splMint: Address;
  token2022Mint: Address;
  lookupTable: Address;
  light: LightDemoState | null;
  /** The Token-2022 NFT collection and its NFTs (absent in states saved before the demo had them). */
  assets?: DemoAssetsState;
}

export interface DemoWorkload {
  readonly wallets: Address[];
  readonly mints: { splToken: Address; token2022: Address };
  readonly lookupTable: Address;
  /** Counters of submitted transactions. */
  readonly stats: { sent: number; failedOnPurpose: number; errors: number };
  /** The compressed activity (mint, counters, V2 queues still open), or null when it is off. */
  readonly light: LightDemoInfo | null;
  /** The Token-2022 NFT collection, its NFTs and their current holders. */
  readonly assets: DemoAssetsInfo;
  /** Whether this workload continued a saved one (`resume`) instead of setting up new wallets and mints. */
  readonly resumed: boolean;
  stop(): Promise<void>;
  /** What `resume` needs to continue this workload; consistent with the chain once `stop()` has returned. */
  state(): DemoState;
}

/** A wallet whose private key can be saved (kit's generated key pairs are not extractable). */
async function newWallet(): Promise<{ signer: KeyPairSigner; key: Uint8Array }> {
  const key = crypto.getRandomValues(new Uint8Array(32));
  return { signer: await createKeyPairSignerFromPrivateKeyBytes(key), key };
}

const SPL_DECIMALS = 6;
const T22_DECIMALS = 9;

/** Sets everything up (awaited), then keeps sending transfers until `stop()`. */
export async function startDemoWorkload(target: LocalChain | string, opts: DemoOptions = {}): Promise<DemoWorkload> {
  const client = demoClient(target);
  const log = opts.log ?? (() => {});
  const send = async (payer: KeyPairSigner, instructions: Instruction[], o: { skipPreflight?: boolean; version?: 'legacy' | 0; lookupTables?: Record<Address, Address[]> } = {}) => {
    const { blockhash, lastValidBlockHeight } = await client.latestBlockhash();
    const wire = await buildWireTransaction({ feePayer: payer, instructions, blockhash, lastValidBlockHeight, version: o.version, lookupTables: o.lookupTables });
    return client.send(wire, o.skipPreflight ?? false);
  };
  const base = opts.resume ? await resumeBase(opts.resume) : await setUpBase(client, send, Math.max(2, opts.wallets ?? 4), opts.solPerWallet ?? 100);
  const { wallets, walletKeys, splMint, t22Mint, splAtas, t22Atas, table, tableAddresses, tableReadyAfter } = base;
  const n = wallets.length;
  const lookupTables = { [table]: tableAddresses } as Record<Address, Address[]>;
  let light: LightDemo | null = null;
  const withLight = opts.light ?? (await hasLightPrograms(client));
  if (withLight) {
    if (opts.light && !(await hasLightPrograms(client))) throw new Error('demo: light requested but the chain has no Light programs and trees (start it with light: true)');
    light = await startLightDemo({ client, send: (payer, instructions) => send(payer, instructions), wallets, log }, opts.lightOptions, opts.resume?.light ?? undefined);
  }
  const assets: DemoAssets = await startDemoAssets({ client, send: (payer, instructions) => send(payer, instructions), wallets, log }, opts.resume?.assets);
  log(opts.resume ? 'demo workload resumed' : 'demo workload ready', {
    wallets: wallets.map((w) => w.address), splMint, token2022Mint: t22Mint, lookupTable: table,
    compressedMint: light?.info.mint ?? null, nftCollection: assets.info.collection,
  });

  const stats = { sent: 0, failedOnPurpose: 0, errors: 0 };
  const failureRate = opts.failureRate ?? 0.1;
  const rand = (k: number) => Math.floor(Math.random() * k);
  let round = 0;
  const tick = async () => {
    const i = rand(n);
    const j = (i + 1 + rand(n - 1)) % n;
    const from = wallets[i];
    // SOL, SPL Token, Token-2022, NFT, then (with Light) a compressed transaction.
    const kind = round++ % (light ? 5 : 4);
    if (kind === 3 || kind === 4) {
      await (kind === 3 ? assets.tick() : light!.tick());
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
      await send(from, [spl.getTransferCheckedInstruction({ source: splAtas[i], mint: splMint, destination: splAtas[j], authority: from, amount, decimals: SPL_DECIMALS })], { skipPreflight: fail });
    } else {
      const amount = fail ? 10n ** 18n : BigInt(1 + rand(10 ** T22_DECIMALS));
      await send(from, [t22.getTransferCheckedInstruction({ source: t22Atas[i], mint: t22Mint, destination: t22Atas[j], authority: from, amount, decimals: T22_DECIMALS })], {
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
    mints: { splToken: splMint, token2022: t22Mint },
    lookupTable: table,
    stats,
    light: light?.info ?? null,
    assets: assets.info,
    resumed: opts.resume !== undefined,
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await inFlight;
    },
    state: () => ({
      version: 1, walletKeys: walletKeys.map((k) => bytesToBase58(k)), splMint, token2022Mint: t22Mint, lookupTable: table,
      light: light?.state() ?? null, assets: assets.state(),
    }),
  };
}

/** The non-compressed part of a workload: wallets, the two mints and their ATAs, the lookup table. */
interface DemoBase {
  wallets: KeyPairSigner[];
  walletKeys: Uint8Array[];
  splMint: Address;
  t22Mint: Address;
  splAtas: Address[];
  t22Atas: Address[];
  table: Address;
  tableAddresses: Address[];
  /** The table's addresses are usable in slots after this one. */
  tableReadyAfter: number;
}

type DemoSend = (payer: KeyPairSigner, instructions: Instruction[]) => Promise<string>;

async function atasOf(wallets: KeyPairSigner[], splMint: Address, t22Mint: Address): Promise<{ splAtas: Address[]; t22Atas: Address[] }> {
  const splAtas: Address[] = [];
  const t22Atas: Address[] = [];
  for (const w of wallets) {
    splAtas.push((await spl.findAssociatedTokenPda({ owner: w.address, mint: splMint, tokenProgram: spl.TOKEN_PROGRAM_ADDRESS }))[0]);
    t22Atas.push((await t22.findAssociatedTokenPda({ owner: w.address, mint: t22Mint, tokenProgram: t22.TOKEN_2022_PROGRAM_ADDRESS }))[0]);
  }
  return { splAtas, t22Atas };
}

const tableAddressesOf = (wallets: KeyPairSigner[], splAtas: Address[], t22Atas: Address[], splMint: Address, t22Mint: Address): Address[] =>
  [...wallets.map((w) => w.address), ...splAtas, ...t22Atas, splMint, t22Mint];

/** A saved workload's wallets, mints, ATAs and table, on a chain that already holds them (no transaction). */
async function resumeBase(state: DemoState): Promise<DemoBase> {
  if (state.version !== 1 || state.walletKeys.length < 2) throw new Error('demo: unusable saved workload state');
  const walletKeys = state.walletKeys.map((k) => base58ToBytes(k));
  const wallets = await Promise.all(walletKeys.map((k) => createKeyPairSignerFromPrivateKeyBytes(k)));
  const { splAtas, t22Atas } = await atasOf(wallets, state.splMint, state.token2022Mint);
  return {
    wallets, walletKeys, splMint: state.splMint, t22Mint: state.token2022Mint, splAtas, t22Atas, table: state.lookupTable,
    tableAddresses: tableAddressesOf(wallets, splAtas, t22Atas, state.splMint, state.token2022Mint), tableReadyAfter: 0,
  };
}

/** Funds new wallets and creates the mints, ATAs (with supply) and the lookup table. */
async function setUpBase(client: DemoClient, send: DemoSend, n: number, solPerWallet: number): Promise<DemoBase> {
  const made = await Promise.all(Array.from({ length: n }, () => newWallet()));
  const wallets = made.map((w) => w.signer);
  const admin = wallets[0];
  for (const w of wallets) await client.airdrop(w.address, BigInt(Math.round(solPerWallet * 1e9)));

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
  const { name, symbol, uri } = DEMO_TOKENS.token2022;
  const metadata = t22.extension('TokenMetadata', { updateAuthority: admin.address, mint: t22Mint.address, name, symbol, uri, additionalMetadata: new Map() });
  const space = t22.getMintSize(extensions);
  await send(admin, [
    // Rent for the final size (metadata reallocates), space for the fixed-size extensions only.
    getCreateAccountInstruction({ payer: admin, newAccount: t22Mint, lamports: await client.rent(t22.getMintSize([...extensions, metadata])), space, programAddress: t22.TOKEN_2022_PROGRAM_ADDRESS }),
    ...t22.getPreInitializeInstructionsForMintExtensions(t22Mint.address, extensions),
    t22.getInitializeMintInstruction({ mint: t22Mint.address, decimals: T22_DECIMALS, mintAuthority: admin.address }),
    ...t22.getPostInitializeInstructionsForMintExtensions(t22Mint.address, admin, [metadata]),
  ]);

  // ATAs and initial supply for every wallet.
  const { splAtas, t22Atas } = await atasOf(wallets, splMint.address, t22Mint.address);
  for (let k = 0; k < n; k++) {
    const w = wallets[k];
    await send(admin, [
      spl.getCreateAssociatedTokenIdempotentInstruction({ payer: admin, ata: splAtas[k], owner: w.address, mint: splMint.address }),
      t22.getCreateAssociatedTokenIdempotentInstruction({ payer: admin, ata: t22Atas[k], owner: w.address, mint: t22Mint.address }),
      spl.getMintToCheckedInstruction({ mint: splMint.address, token: splAtas[k], mintAuthority: admin, amount: 1_000_000n * 10n ** BigInt(SPL_DECIMALS), decimals: SPL_DECIMALS }),
      t22.getMintToCheckedInstruction({ mint: t22Mint.address, token: t22Atas[k], mintAuthority: admin, amount: 1_000_000n * 10n ** BigInt(T22_DECIMALS), decimals: T22_DECIMALS }),
    ]);
  }

  // A lookup table holding the wallets, ATAs and mints (usable from the slot after the extension). Its recentSlot
  // must be listed in the SlotHashes sysvar: the chain's latest block always is (genesis included).
  const created = await getCreateLookupTableInstruction({ authority: admin.address, payer: admin.address, recentSlot: BigInt(await client.slot()) });
  const tableAddresses = tableAddressesOf(wallets, splAtas, t22Atas, splMint.address, t22Mint.address);
  await send(admin, [created.instruction, getExtendLookupTableInstruction({ table: created.table, authority: admin.address, payer: admin.address, addresses: tableAddresses })]);
  return {
    wallets, walletKeys: made.map((w) => w.key), splMint: splMint.address, t22Mint: t22Mint.address, splAtas, t22Atas,
    table: created.table, tableAddresses, tableReadyAfter: await client.slot(),
  };
}
