/**
 * Decoder for the events the account-compression programs log through their noop ("log wrapper") programs.
 *
 * Compressed-tree programs cannot afford to keep history in accounts, so every tree change is emitted as the data of
 * an inner instruction to a program that does nothing (the noop). Indexers read it back from the transaction:
 *  - spl-account-compression `cmtDvXumGCrqC1Age74AVPhSRVXJMd8PJS91L8KbNCK` logs through spl-noop
 *    `noopb9bkMVfRPU8AsbpTUg8AQkHtKwMYZiFUjNRtMmV` (Bubblegum v1 trees);
 *  - mpl-account-compression `mcmt6YrQEMKw8Mw43FmpRLmf7BqRnFMKmAcbxE3xkAW` logs through mpl-noop
 *    `mnoopTCrg4p8ry25e4bcWA9XZjbNjMTfgYVGGEdRsf3` (Bubblegum v2 trees).
 * Both use the same Borsh layout, `AccountCompressionEvent`:
 *   enum { ChangeLog(ChangeLogEvent::V1 { id: Pubkey, path: Vec<PathNode { node: [u8;32], index: u32 }>, seq: u64,
 *   index: u32 }), ApplicationData(ApplicationDataEvent::V1 { application_data: Vec<u8> }) }
 * Programs that wrap their own data (Bubblegum's leaf events) send it as `ApplicationData`.
 *
 * Sources: https://github.com/solana-labs/solana-program-library/blob/master/account-compression/programs/account-compression/src/events/mod.rs
 * (and `events/changelog_event.rs`, `events/application_data.rs`),
 * https://github.com/metaplex-foundation/mpl-account-compression/tree/main/programs/account-compression/src/events.
 * The layout is composed from the umi serializer primitives; `test/parsers/bubblegum/account-compression.test.ts`
 * checks it against the generated `@metaplex-foundation/spl-account-compression` serializer.
 *
 * Pure and synchronous.
 */
import { array, bytes, dataEnum, publicKey, struct, tuple, u32, u64, type DataEnum, type Serializer } from '../../vendor/umi-serializers.js';
import { bytesToBase58 } from '../../core/encoding.js';
import type { Address } from '../../core/model.js';

export const SPL_ACCOUNT_COMPRESSION_PROGRAM = 'cmtDvXumGCrqC1Age74AVPhSRVXJMd8PJS91L8KbNCK';
export const SPL_NOOP_PROGRAM = 'noopb9bkMVfRPU8AsbpTUg8AQkHtKwMYZiFUjNRtMmV';
export const MPL_ACCOUNT_COMPRESSION_PROGRAM = 'mcmt6YrQEMKw8Mw43FmpRLmf7BqRnFMKmAcbxE3xkAW';
export const MPL_NOOP_PROGRAM = 'mnoopTCrg4p8ry25e4bcWA9XZjbNjMTfgYVGGEdRsf3';

/** The compression program whose events each noop program carries. */
export const COMPRESSION_PROGRAM_BY_NOOP: ReadonlyMap<string, Address> = new Map([
  [SPL_NOOP_PROGRAM, SPL_ACCOUNT_COMPRESSION_PROGRAM],
  [MPL_NOOP_PROGRAM, MPL_ACCOUNT_COMPRESSION_PROGRAM],
]);

/** One node of a change-log path: the node hash (base58) and its index in the tree (root = 1). */
export interface ChangeLogPathNode {
  node: string;
  index: number;
}

/**
 * A change-log event: the new path from the changed leaf (`path[0]`) to the root (last), after the tree's
 * `seq`-th successful operation. `leafIndex` is the event's `index` field, the index of the changed leaf.
 */
export interface ChangeLog {
  /** The concurrent Merkle tree account. */
  tree: Address;
  /** The compression program that wrote it (spl or mpl account compression, by the noop program used). */
  compressionProgram: Address;
  seq: bigint;
  leafIndex: number;
  path: ChangeLogPathNode[];
}

/** A decoded noop payload. */
export type CompressionNoopEvent =
  | { kind: 'changeLog'; changeLog: ChangeLog }
  | { kind: 'applicationData'; compressionProgram: Address; data: Uint8Array };

interface RawPathNode {
  node: Uint8Array;
  index: number;
}
interface RawChangeLogV1 {
  id: string;
  path: RawPathNode[];
  seq: bigint;
  index: number;
}
/** A one-field tuple variant, as Borsh encodes `Variant(inner)`: `{__kind, fields: [inner]}`. */
type Variant<K extends string, T> = { __kind: K; fields: [T] };
type RawEvent =
  | Variant<'ChangeLog', Variant<'V1', RawChangeLogV1>>
  | Variant<'ApplicationData', Variant<'V1', { applicationData: Uint8Array }>>;

/** `{__kind: name, fields: [inner]}` for a tuple variant holding one value. */
function variant<T>(name: string, inner: Serializer<T, T>): [string, Serializer<Omit<DataEnum, '__kind'>>] {
  const s = struct<{ fields: [T] }>([['fields', tuple<[T]>([inner])]]);
  return [name, s as unknown as Serializer<Omit<DataEnum, '__kind'>>];
}

let serializer: Serializer<RawEvent, RawEvent> | null = null;

/** `AccountCompressionEvent` (Borsh), composed once from umi primitives. */
function eventSerializer(): Serializer<RawEvent, RawEvent> {
  if (serializer) return serializer;
  const pathNode = struct<RawPathNode>([
    ['node', bytes({ size: 32 })],
    ['index', u32()],
  ]);
  const changeLogV1 = struct<RawChangeLogV1>([
    ['id', publicKey()],
    ['path', array(pathNode)],
    ['seq', u64() as Serializer<bigint, bigint>],
    ['index', u32()],
  ]);
  const appDataV1 = struct<{ applicationData: Uint8Array }>([['applicationData', bytes({ size: u32() })]]);
  serializer = dataEnum([
    variant('ChangeLog', dataEnum([variant('V1', changeLogV1)]) as Serializer<DataEnum>),
    variant('ApplicationData', dataEnum([variant('V1', appDataV1)]) as Serializer<DataEnum>),
  ]) as unknown as Serializer<RawEvent, RawEvent>;
  return serializer;
}

/**
 * Decodes the data of a noop inner instruction. Returns `null` when it is not an `AccountCompressionEvent`:
 * anyone may call the noop programs with anything (callers log their own data through them), so undecodable
 * payloads are not errors; the reference indexer skips them too. Never throws.
 * `noopProgram` says which compression program wrote the event.
 */
export function decodeCompressionNoop(noopProgram: Address, data: Uint8Array): CompressionNoopEvent | null {
  const compressionProgram = COMPRESSION_PROGRAM_BY_NOOP.get(noopProgram);
  if (!compressionProgram || data.length === 0 || data[0] > 1) return null;
  let ev: RawEvent;
  try {
    ev = eventSerializer().deserialize(data)[0];
  } catch {
    return null;
  }
  if (ev.__kind === 'ApplicationData') {
    return { kind: 'applicationData', compressionProgram, data: ev.fields[0].fields[0].applicationData };
  }
  const cl = ev.fields[0].fields[0];
  return {
    kind: 'changeLog',
    changeLog: {
      tree: cl.id,
      compressionProgram,
      seq: cl.seq,
      leafIndex: cl.index,
      path: cl.path.map((p) => ({ node: bytesToBase58(p.node), index: p.index })),
    },
  };
}
