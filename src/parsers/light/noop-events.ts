/**
 * Events the account compression and light system programs log as data of a CPI to the noop program
 * (`noopb9bk…`), the older event form:
 *
 * - `PublicTransactionEvent` (light system program; found after an account compression instruction and one or two
 *   SOL transfers — tree rollover fees — as Photon's `parse_transaction` looks for it). The current layout ends with
 *   `ata_owners`; older programs logged it without (Photon `PublicTransactionEvent::deserialize_versioned`).
 * - `MerkleTreeEvent` (account compression, right after its instruction): V1 change log, V2 nullifier event (V1 state
 *   tree nullified by the forester), V3 indexed-tree update (V1 address tree), and the V2 batch events
 *   (BatchAppend, BatchNullify, BatchAddressAppend). Photon `merkle_tree_events_parser.rs`.
 */
import type { Address } from '../../core/model.js';
import {
  ataOwnersDecoder,
  batchEventDecoder,
  changelogEventDecoder,
  indexedMerkleTreeEventDecoder,
  nullifierEventDecoder,
  plain,
  publicTransactionEventLegacyDecoder,
  readAt,
} from './codecs.js';
import type { TxEvent } from './events.js';

/** Decodes a noop `PublicTransactionEvent` (current or legacy layout). Throws when it is neither. */
export function decodePublicTransactionEvent(data: Uint8Array): TxEvent {
  const [e, end] = readAt(publicTransactionEventLegacyDecoder, data, 0);
  let ataOwners: TxEvent['ataOwners'] = [];
  if (end < data.length) {
    try {
      ataOwners = readAt(ataOwnersDecoder, data, end)[0].map((a) => ({ outputIndex: a.outputIndex, walletOwner: a.walletOwner }));
    } catch {
      ataOwners = []; // trailing bytes that are not `ata_owners`: the legacy layout (Borsh ignores what follows)
    }
  }
  return {
    inputHashes: e.inputCompressedAccountHashes.map(plain),
    outputHashes: e.outputCompressedAccountHashes.map(plain),
    outputAccounts: e.outputCompressedAccounts,
    outputLeafIndices: [...e.outputLeafIndices],
    sequenceNumbers: e.sequenceNumbers.map((s) => ({ treePubkey: s.treePubkey, seq: s.seq })),
    pubkeyArray: [...e.pubkeyArray],
    ataOwners,
  };
}

export interface RawIndexedElement {
  value: Uint8Array;
  nextIndex: bigint;
  nextValue: Uint8Array;
  index: bigint;
}

/** A decoded `MerkleTreeEvent`. */
export type MerkleTreeEvent =
  | { kind: 'changelog'; tree: Address; paths: { node: Uint8Array; index: number }[][]; seq: bigint; index: number }
  | { kind: 'nullifier'; tree: Address; leafIndices: bigint[]; seq: bigint }
  | {
      kind: 'indexed';
      tree: Address;
      updates: { low: RawIndexedElement; lowHash: Uint8Array; high: RawIndexedElement; highHash: Uint8Array }[];
      seq: bigint;
    }
  | {
      kind: 'batchAppend' | 'batchNullify' | 'batchAddressAppend';
      tree: Address;
      batchIndex: bigint;
      zkpBatchIndex: bigint;
      zkpBatchSize: bigint;
      oldNextIndex: bigint;
      newNextIndex: bigint;
      newRoot: Uint8Array;
      rootIndex: number;
      sequenceNumber: bigint;
      outputQueue: Address | null;
    };

const BATCH_KINDS = ['batchAppend', 'batchNullify', 'batchAddressAppend'] as const;

const element = (e: { value: Uint8Array | ArrayLike<number>; nextIndex: bigint; nextValue: Uint8Array | ArrayLike<number>; index: bigint }): RawIndexedElement => ({
  value: plain(e.value as Uint8Array),
  nextIndex: e.nextIndex,
  nextValue: plain(e.nextValue as Uint8Array),
  index: e.index,
});

/**
 * Decodes a `MerkleTreeEvent`, or returns null when the data is not one (anyone may call the noop program, and Photon
 * skips what does not decode). A V1 change log, which Photon does not index, is only accepted when it spans the whole
 * payload, so that a noop payload of another kind is not taken for one.
 */
export function decodeMerkleTreeEvent(data: Uint8Array): MerkleTreeEvent | null {
  if (data.length === 0) return null;
  try {
    switch (data[0]) {
      case 0: {
        const [e, end] = readAt(changelogEventDecoder, data, 1);
        if (end !== data.length) return null;
        return { kind: 'changelog', tree: e.id, paths: e.paths.map((p) => p.map((n) => ({ node: plain(n.node), index: n.index }))), seq: e.seq, index: e.index };
      }
      case 1: {
        const [e] = readAt(nullifierEventDecoder, data, 1);
        return { kind: 'nullifier', tree: e.id, leafIndices: [...e.nullifiedLeavesIndices], seq: e.seq };
      }
      case 2: {
        const [e] = readAt(indexedMerkleTreeEventDecoder, data, 1);
        return {
          kind: 'indexed',
          tree: e.id,
          updates: e.updates.map((u) => ({
            low: element(u.newLowElement),
            lowHash: plain(u.newLowElementHash),
            high: element(u.newHighElement),
            highHash: plain(u.newHighElementHash),
          })),
          seq: e.seq,
        };
      }
      case 3:
      case 4:
      case 5: {
        const [e] = readAt(batchEventDecoder, data, 1);
        return {
          kind: BATCH_KINDS[data[0] - 3],
          tree: e.merkleTreePubkey,
          batchIndex: e.batchIndex,
          zkpBatchIndex: e.zkpBatchIndex,
          zkpBatchSize: e.zkpBatchSize,
          oldNextIndex: e.oldNextIndex,
          newNextIndex: e.newNextIndex,
          newRoot: plain(e.newRoot),
          rootIndex: e.rootIndex,
          sequenceNumber: e.sequenceNumber,
          outputQueue: e.outputQueuePubkey,
        };
      }
      default:
        return null;
    }
  } catch {
    return null;
  }
}
