/**
 * Light Protocol (ZK Compression) genesis for the built-in localnet: the five Light programs and the genesis
 * tree/config accounts that `light test-validator` loads, taken from the installed
 * `@lightprotocol/zk-compression-cli` package, written into LiteSVM before the first slot.
 *
 * How the CLI does it (`dist/utils/initTestEnv.js`, `getSolanaArgs`): every entry of its `SYSTEM_PROGRAMS`
 * becomes `solana-test-validator --bpf-program <id> bin/<name>` and the package's `accounts/` directory is
 * passed as `--account-dir` (each `*.json` is a `solana account --output json` dump:
 * `{pubkey, account: {lamports, data: [base64, "base64"], owner, executable, rentEpoch, space}}`).
 * `LIGHT_PROGRAMS` below is that table; a test checks it against the installed CLI. (The CLI's
 * `dist/commands/test-validator/index.js` also exports a stale copy naming `light_system_program.so`; the file
 * that ships, and the one `initTestEnv` loads, is `light_system_program_pinocchio.so`.)
 *
 * Duplicates: `accounts/` holds three pubkeys twice (`merkle_tree_pubkey_2_smt2…` / `merkle_tree_pubkey_smt2…`,
 * `nullifier_queue_pubkey_2_nfq2…` / `nullifier_queue_pubkey_nfq2…`, `cpi_context_2_cpi2cdhk…` /
 * `cpi_context_cpi2cdhk…`). The tree and queue pairs are byte-identical; the CPI-context pair is not: the
 * `_2_` dump is the legacy `CpiContextAccount1` layout (20 488 bytes), the other the current
 * `CpiContextAccount2` layout (14 020 bytes, like the six other CPI contexts). solana-test-validator keeps
 * whichever file its directory listing yields last (unspecified order); here files are read in name order and
 * the later file wins, which picks the current layout for `cpi2cdhk…`. Every replacement is reported.
 * (`bin/test_batched_cpi_context_7Hp52…json` is an account dump outside `accounts/`; the CLI never loads it and
 * neither does this.)
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import type { LiteSVM } from 'litesvm';
import { address as toAddress, lamports as toLamports } from '@solana/kit';

/** Light system program (the pinocchio build). */
export const LIGHT_SYSTEM_PROGRAM = 'SySTEM1eSU2p4BGQfQpimFEWWSC1XDFeun3Nqzz3rT7';
/** Account compression program: owns the Merkle trees and queues. */
export const ACCOUNT_COMPRESSION_PROGRAM = 'compr6CUsB5m2jS4Y3831ztGSTnDpnKJTKS95d64XVq';
/** Compressed token program. */
export const COMPRESSED_TOKEN_PROGRAM = 'cTokenmWW8bLPjZEBAUgYy3zKxQZW6VKi7bqNFEVv3m';
/** Light registry (protocol config, foresters). */
export const LIGHT_REGISTRY_PROGRAM = 'Lighton6oQpVkeewmo2mcPTQQp7kYHr4fWpAgJyEmDX';
/** SPL noop (Light's build). Light instructions still list it as an account, but the current programs no longer
 * invoke it: the event travels in the account compression `insert_into_queues` instruction data instead. */
export const LIGHT_NOOP_PROGRAM = 'noopb9bkMVfRPU8AsbpTUg8AQkHtKwMYZiFUjNRtMmV';

/** Light system program PDA registered with account compression (genesis `registered_program_pda_…`). */
export const LIGHT_REGISTERED_PROGRAM_PDA = '35hkDgaAKwMCaxRz2ocSZ6NaUrtKkyNqU6c4RV3tYJRh';
/** PDA(["cpi_authority"], light system program): the light system program's signer towards account compression. */
export const LIGHT_ACCOUNT_COMPRESSION_AUTHORITY = 'HwXnGK3tPkkVY6P439H2p68AxpeuWXd5PcrAxFpbmfbA';
/** PDA(["sol_pool_pda"], light system program): holds compressed SOL. Created by the first compression (which
 * must therefore move at least its rent-exempt minimum, 890 880 lamports). */
export const LIGHT_SOL_POOL_PDA = 'CHK57ywWSDncAoRu1F8QgwYJeXuAJyyBYT4LixLXvMZ1';
/** PDA(["cpi_authority"], compressed token program). */
export const COMPRESSED_TOKEN_CPI_AUTHORITY = 'GXtd2izAiMJPwMEjfgTRH3d7k9mjn4Jq3JrWFv9gySYy';

/**
 * A state tree of the genesis set. Outputs go to `tree` for V1 and to the output `queue` for V2; spends name
 * both. Addresses as in @lightprotocol/stateless.js `localTestActiveStateTreeInfos()` (checked by a test).
 */
export interface LightStateTree {
  readonly version: 1 | 2;
  readonly tree: string;
  /** V1: nullifier queue; V2: output queue. */
  readonly queue: string;
  readonly cpiContext: string;
}

/** V1 concurrent state trees (height 26). Appends need no proof; spending needs a ZK proof (a prover). */
export const LIGHT_STATE_TREES_V1: readonly LightStateTree[] = [
  { version: 1, tree: 'smt1NamzXdq4AMqS2fS2F1i5KTYPZRhoHgWx38d8WsT', queue: 'nfq1NvQDJ2GEgnS8zt9prAe8rjjpAW1zFkrvZoBR148', cpiContext: 'cpi1uHzrEhBG733DoEJNgHCyRS3XmmyVNZx5fonubE4' },
  { version: 1, tree: 'smt2rJAFdyJJupwMKAqTNAJwvjhmiZ4JYGZmbVRw1Ho', queue: 'nfq2hgS7NYemXsFaFUCe3EMXSDSfnZnAe27jC6aPP1X', cpiContext: 'cpi2cdhkH5roePvcudTgUL8ppEBfTay1desGh8G8QxK' },
];

/**
 * V2 batched state trees (height 32) with their output queues. An output that is still in its output queue can
 * be spent "by index" with no proof, so compressed accounts can be created and spent locally without a prover.
 * Without a forester (none runs here) nothing leaves the queues: each output queue takes
 * `num_batches × batch_size` = 2 × 50 = 100 outputs (and each tree's input queue 100 spends), after which the
 * account compression program rejects further inserts (custom error 14301, batch not ready).
 */
export const LIGHT_STATE_TREES_V2: readonly LightStateTree[] = [
  { version: 2, tree: 'bmt1LryLZUMmF7ZtqESaw7wifBXLfXHQYoE4GAmrahU', queue: 'oq1na8gojfdUhsfCpyjNt6h4JaDWtHf1yQj4koBWfto', cpiContext: 'cpi15BoVPKgEPw5o8wc2T816GE7b378nMXnhH3Xbq4y' },
  { version: 2, tree: 'bmt2UxoBxB9xWev4BkLvkGdapsz6sZGkzViPNph7VFi', queue: 'oq2UkeMsJLfXt2QHzim242SUi3nvjJs8Pn7Eac9H9vg', cpiContext: 'cpi2yGapXUR3As5SjnHBAVvmApNiLsbeZpF3euWnW6B' },
  { version: 2, tree: 'bmt3ccLd4bqSVZVeCJnH1F6C8jNygAhaDfxDwePyyGb', queue: 'oq3AxjekBWgo64gpauB6QtuZNesuv19xrhaC1ZM1THQ', cpiContext: 'cpi3mbwMpSX8FAGMZVP85AwxqCaQMfEk9Em1v8QK9Rf' },
  { version: 2, tree: 'bmt4d3p1a4YQgk9PeZv5s4DBUmbF5NxqYpk9HGjQsd8', queue: 'oq4ypwvVGzCUMoiKKHWh4S1SgZJ9vCvKpcz6RT6A8dq', cpiContext: 'cpi4yyPDc4bCgHAnsenunGA8Y77j3XEDyjgfyCKgcoc' },
  { version: 2, tree: 'bmt5yU97jC88YXTuSukYHa8Z5Bi2ZDUtmzfkDTA2mG2', queue: 'oq5oh5ZR3yGomuQgFduNDzjtGvVWfDRGLuDVjv9a96P', cpiContext: 'cpi5ZTjdgYpZ1Xr7B1cMLLUE81oTtJbNNAyKary2nV6' },
];

/** Default output trees (the first of each set, as stateless.js picks on localnet when asked for one). */
export const DEFAULT_STATE_TREE_V1: LightStateTree = LIGHT_STATE_TREES_V1[0];
export const DEFAULT_STATE_TREE_V2: LightStateTree = LIGHT_STATE_TREES_V2[0];

/** Address trees: V1 (tree + queue; new addresses need a proof) and V2 (the queue lives in the tree account). */
export const LIGHT_ADDRESS_TREE_V1 = { tree: 'amt1Ayt45jfbdw5YSo7iz6WZxUmnZsQTYXy82hVwyC2', queue: 'aq1S9z4reTSQAdgWHGD2zDaS39sjGrAxbR31vxJ2F4F' } as const;
export const LIGHT_ADDRESS_TREE_V2 = { tree: 'amt2kaJA14v3urZbZvnc5v2np8jqvc4Z8zDep5wbtzx', queue: 'amt2kaJA14v3urZbZvnc5v2np8jqvc4Z8zDep5wbtzx' } as const;

/**
 * Whether a chain has the Light programs and default trees (true after `light: true`, and on a chain restored
 * from a snapshot of such a chain, where `chain.light` is null).
 */
export function hasLightGenesis(chain: { getAccount(address: string): { executable: boolean } | null }): boolean {
  return LIGHT_PROGRAMS.every((p) => chain.getAccount(p.programId)?.executable === true)
    && [DEFAULT_STATE_TREE_V1.tree, DEFAULT_STATE_TREE_V2.queue].every((a) => chain.getAccount(a) !== null);
}

/**
 * Next leaf index of a V1 state tree account (`StateMerkleTreeAccount`: 8-byte discriminator, 216-byte
 * `MerkleTreeMetadata`, then the concurrent tree header height, canopy depth, next index, sequence number).
 */
export function v1StateTreeNextIndex(data: Uint8Array): bigint {
  return readU64(data, 8 + 216 + 16);
}

/**
 * Output-queue counters of a V2 output queue account (`BatchedQueueAccount`: 8-byte discriminator, 224-byte
 * `QueueMetadata`, then `QueueBatches` { num_batches, batch_size, zkp_batch_size, bloom_filter_capacity,
 * currently_processing_batch_index, pending_batch_index, next_index, … }, light-protocol
 * `program-libs/batched-merkle-tree/src/queue_batch_metadata.rs`). `nextIndex` is the leaf index the next
 * output gets; `capacity` is how many outputs fit before a forester has to empty a batch.
 */
export function v2OutputQueueCounters(data: Uint8Array): { nextIndex: bigint; batchSize: bigint; capacity: bigint } {
  const at = 8 + 224;
  const numBatches = readU64(data, at);
  const batchSize = readU64(data, at + 8);
  return { nextIndex: readU64(data, at + 48), batchSize, capacity: numBatches * batchSize };
}

function readU64(data: Uint8Array, at: number): bigint {
  if (data.length < at + 8) throw new Error(`account data too short (${data.length} bytes) for a u64 at ${at}`);
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(at, true);
}

/** Program file → program id, as the CLI's `SYSTEM_PROGRAMS` (`dist/utils/initTestEnv.js`). */
export const LIGHT_PROGRAMS: readonly { readonly name: string; readonly programId: string; readonly file: string }[] = [
  { name: 'spl-noop', programId: LIGHT_NOOP_PROGRAM, file: 'spl_noop.so' },
  { name: 'light-system', programId: LIGHT_SYSTEM_PROGRAM, file: 'light_system_program_pinocchio.so' },
  { name: 'compressed-token', programId: COMPRESSED_TOKEN_PROGRAM, file: 'light_compressed_token.so' },
  { name: 'account-compression', programId: ACCOUNT_COMPRESSION_PROGRAM, file: 'account_compression.so' },
  { name: 'light-registry', programId: LIGHT_REGISTRY_PROGRAM, file: 'light_registry.so' },
];

/** A program found in the CLI's `bin/`. */
export interface LightProgramFile {
  name: string;
  programId: string;
  /** Absolute path of the `.so`. */
  path: string;
  bytes: Uint8Array;
}

/** A genesis account from the CLI's `accounts/`. */
export interface LightGenesisAccount {
  pubkey: string;
  /** File name inside `accounts/`. */
  file: string;
  lamports: bigint;
  data: Uint8Array;
  owner: string;
  executable: boolean;
}

/** Everything `installLightGenesis` writes, read from the installed CLI package. */
export interface LightGenesis {
  /** Root of `@lightprotocol/zk-compression-cli`. */
  packageDir: string;
  /** Package version (the programs and accounts are the ones it ships). */
  version: string;
  programs: LightProgramFile[];
  /** One entry per pubkey, in file-name order of the file that won. */
  accounts: LightGenesisAccount[];
  /** Files whose pubkey a later file (in name order) also holds; the later file's account is the one loaded. */
  replaced: { pubkey: string; file: string; by: string }[];
  /** `.so` files in `bin/` with no known program id (not loaded); empty for the supported CLI versions. */
  unknownPrograms: string[];
}

/** What was loaded into a LiteSVM instance, and how long it took. */
export interface LightGenesisSummary {
  version: string;
  programs: { name: string; programId: string; file: string; bytes: number }[];
  accounts: { pubkey: string; file: string; owner: string; bytes: number }[];
  replaced: LightGenesis['replaced'];
  unknownPrograms: string[];
  /** Time to read and decode the package's files (ms). */
  readMs: number;
  /** Time to write them into LiteSVM (ms). */
  installMs: number;
}

const CLI_PACKAGE = '@lightprotocol/zk-compression-cli';

/** Directory of the installed `@lightprotocol/zk-compression-cli` (resolved like an import, no fixed path). */
export function lightCliPackageDir(): string {
  const require = createRequire(import.meta.url);
  try {
    return dirname(require.resolve(`${CLI_PACKAGE}/package.json`));
  } catch {
    // A package whose `exports` hides package.json: walk up from its entry point.
    let entry: string;
    try {
      entry = require.resolve(CLI_PACKAGE);
    } catch (e) {
      throw new Error(`the localnet's Light genesis (light: true) needs ${CLI_PACKAGE} installed: ${String(e)}`);
    }
    for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
      const manifest = join(dir, 'package.json');
      if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === CLI_PACKAGE) return dir;
    }
    throw new Error(`cannot locate the ${CLI_PACKAGE} package directory from ${entry}`);
  }
}

interface AccountDump {
  pubkey: string;
  account: { lamports: number | string; data: [string, string] | string; owner: string; executable: boolean };
}

function decodeDumpData(data: AccountDump['account']['data'], file: string): Uint8Array {
  const [payload, encoding] = Array.isArray(data) ? data : [data, 'base64'];
  if (encoding !== 'base64') throw new Error(`${file}: unsupported account data encoding ${encoding}`);
  return new Uint8Array(Buffer.from(payload, 'base64'));
}

/**
 * Reads the Light programs and genesis accounts from the CLI package (`dir` defaults to the installed one).
 * Throws when a program of `LIGHT_PROGRAMS` is missing or an account dump is malformed.
 */
export function readLightGenesis(dir: string = lightCliPackageDir()): LightGenesis {
  const version = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  const binDir = join(dir, 'bin');
  const programs = LIGHT_PROGRAMS.map((p) => {
    const path = join(binDir, p.file);
    if (!existsSync(path)) throw new Error(`Light program ${p.file} (${p.programId}) not found in ${binDir}`);
    return { name: p.name, programId: p.programId, path, bytes: new Uint8Array(readFileSync(path)) };
  });
  const known = new Set(LIGHT_PROGRAMS.map((p) => p.file));
  const unknownPrograms = readdirSync(binDir).filter((f) => f.endsWith('.so') && !known.has(f)).sort();

  const accountsDir = join(dir, 'accounts');
  const byPubkey = new Map<string, LightGenesisAccount>();
  const replaced: LightGenesis['replaced'] = [];
  for (const file of readdirSync(accountsDir).filter((f) => f.endsWith('.json')).sort()) {
    const dump = JSON.parse(readFileSync(join(accountsDir, file), 'utf8')) as AccountDump;
    if (typeof dump?.pubkey !== 'string' || typeof dump.account?.owner !== 'string') {
      throw new Error(`${file}: not a solana account JSON dump`);
    }
    const previous = byPubkey.get(dump.pubkey);
    if (previous) {
      replaced.push({ pubkey: dump.pubkey, file: previous.file, by: file });
      byPubkey.delete(dump.pubkey); // re-inserted below, so iteration order follows the winning file
    }
    byPubkey.set(dump.pubkey, {
      pubkey: dump.pubkey,
      file,
      lamports: BigInt(dump.account.lamports),
      data: decodeDumpData(dump.account.data, file),
      owner: dump.account.owner,
      executable: dump.account.executable === true,
    });
  }
  const accounts = [...byPubkey.values()].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return { packageDir: dir, version, programs, accounts, replaced, unknownPrograms };
}

/**
 * Loads the Light programs (at their real ids, through LiteSVM's default loader like `--bpf-program`) and the
 * genesis accounts into `svm`. Call it on a fresh chain only: it overwrites the trees, so running it on a chain
 * with Light history would reset them.
 */
export function installLightGenesis(svm: LiteSVM, genesis?: LightGenesis): LightGenesisSummary {
  const t0 = performance.now();
  const g = genesis ?? readLightGenesis();
  const t1 = performance.now();
  for (const p of g.programs) svm.addProgram(toAddress(p.programId), p.bytes);
  for (const a of g.accounts) {
    svm.setAccount({
      address: toAddress(a.pubkey), lamports: toLamports(a.lamports), data: a.data, programAddress: toAddress(a.owner),
      executable: a.executable, space: BigInt(a.data.length),
    });
  }
  const t2 = performance.now();
  return {
    version: g.version,
    programs: g.programs.map((p) => ({ name: p.name, programId: p.programId, file: basename(p.path), bytes: p.bytes.length })),
    accounts: g.accounts.map((a) => ({ pubkey: a.pubkey, file: a.file, owner: a.owner, bytes: a.data.length })),
    replaced: g.replaced,
    unknownPrograms: g.unknownPrograms,
    readMs: genesis ? 0 : t1 - t0,
    installMs: t2 - t1,
  };
}
