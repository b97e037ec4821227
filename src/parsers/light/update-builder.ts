/**
 * The accumulator of one transaction's ZK Compression state update: `UpdateBuilder` turns decoded Light events
 * (`TxEvent`, `BatchTxEvent`, `MerkleTreeEvent`) into `LightStateUpdate` rows with Photon's set/map deduplication
 * (helius-labs/photon `src/ingester/parser/`: `create_state_update_v1`/`_v2`, `merkle_tree_events_parser.rs`).
 * Kept apart from the instruction walk (`index.ts`, `groups.ts`) because this is where events become rows: outputs
 * placed in known trees, sequence numbers, queue entries, indexed-tree updates.
 */
import { bytesToBase58 } from '../../core/encoding.js';
import type { Address, NormalizedTx } from '../../core/model.js';
import { errorReason, failed } from '../common.js';
import type { TracedInstruction } from '../events.js';
import { plain, u64le } from './codecs.js';
import type { BatchTxEvent, TxEvent } from './events.js';
import type { MerkleTreeEvent } from './noop-events.js';
import { isTokenAccount, parseTokenData } from './token-data.js';
import {
  LIGHT_TREE_TYPE,
  type LightIndexedTreeUpdate,
  type LightOutputAccount,
  type LightParseOptions,
  type LightStateUpdate,
} from './types.js';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A u64 counter as a number; throws beyond 2^53 (never reached by real trees). */
function num(v: bigint, what: string): number {
  if (v < 0n || v > MAX_SAFE) throw new Error(`${what} ${v} does not fit a safe integer`);
  return Number(v);
}

const b58 = (b: Uint8Array) => bytesToBase58(b);

/** Collects one transaction's update with Photon's set/map deduplication. */
export class UpdateBuilder {
  readonly u: LightStateUpdate;
  private readonly inputs = new Set<string>();
  private readonly links = new Set<string>();
  private readonly nullifications = new Set<string>();
  private readonly indexed = new Map<string, LightIndexedTreeUpdate>();
  private readonly unknown = new Set<string>();
  compression = false;

  constructor(
    private readonly tx: NormalizedTx,
    private readonly opts: LightParseOptions,
  ) {
    this.u = {
      signature: tx.signature,
      slot: tx.slot,
      transaction: null,
      inputAccountHashes: [],
      outputAccounts: [],
      nullifierQueue: [],
      accountTransactions: [],
      leafNullifications: [],
      indexedTreeUpdates: [],
      newAddresses: [],
      batchNewAddresses: [],
      ataOwners: [],
      batchEvents: [],
      changelogs: [],
      treeRollovers: [],
      unknownTrees: [],
      failures: [],
    };
  }

  fail(ix: TracedInstruction, reason: string): void {
    this.u.failures.push(failed(ix, reason));
  }

  private link(hash: string): void {
    if (this.links.has(hash)) return;
    this.links.add(hash);
    this.u.accountTransactions.push({ hash, signature: this.tx.signature });
  }

  /** `create_state_update_v1`: inputs, and outputs placed in their trees. */
  txEvent(ev: TxEvent, at: TracedInstruction): void {
    for (const h of ev.inputHashes) {
      const hash = b58(h);
      if (!this.inputs.has(hash)) {
        this.inputs.add(hash);
        this.u.inputAccountHashes.push(hash);
      }
      this.link(hash);
    }
    const n = Math.min(ev.outputAccounts.length, ev.outputHashes.length, ev.outputLeafIndices.length);
    if (n !== ev.outputAccounts.length || n !== ev.outputHashes.length || n !== ev.outputLeafIndices.length) {
      this.fail(
        at,
        `event lists ${ev.outputAccounts.length} output accounts, ${ev.outputHashes.length} hashes and ${ev.outputLeafIndices.length} leaf indices`,
      );
    }
    const seqByTree = new Map<Address, bigint>();
    for (const s of ev.sequenceNumbers) seqByTree.set(s.treePubkey, s.seq);
    const trees = this.opts.trees;
    for (let i = 0; i < n; i++) {
      const out = ev.outputAccounts[i];
      const key = ev.pubkeyArray[out.merkleTreeIndex];
      if (key === undefined) {
        this.fail(at, `output ${i} names tree account ${out.merkleTreeIndex} of ${ev.pubkeyArray.length}`);
        continue;
      }
      const info = trees?.(key);
      if (!info) {
        if (!this.unknown.has(key)) {
          this.unknown.add(key);
          this.u.unknownTrees.push(key);
        }
        continue;
      }
      let seq: number | null = null;
      if (info.treeType === LIGHT_TREE_TYPE.StateV1) {
        const s = seqByTree.get(key);
        if (s === undefined) {
          this.fail(at, `output ${i}: no sequence number for V1 state tree ${key}`);
          continue;
        }
        try {
          seq = num(s, 'sequence number');
        } catch (e) {
          this.fail(at, errorReason(e));
          continue;
        }
        seqByTree.set(key, s + 1n);
      }
      const acc = out.compressedAccount;
      const hash = b58(ev.outputHashes[i]);
      const inOutputQueue = info.treeType === LIGHT_TREE_TYPE.StateV2;
      const data = acc.data
        ? {
            discriminator: plain(acc.data.discriminator),
            discriminatorValue: u64le(plain(acc.data.discriminator)),
            data: plain(acc.data.data),
            dataHash: b58(plain(acc.data.dataHash)),
          }
        : null;
      let tokenData: LightOutputAccount['tokenData'] = null;
      if (data && isTokenAccount(acc.owner, data.discriminator)) {
        try {
          tokenData = parseTokenData(data.data);
        } catch (e) {
          this.fail(at, `output ${hash}: token data: ${errorReason(e)}`);
        }
      }
      this.u.outputAccounts.push({
        hash,
        address: acc.address ? b58(plain(acc.address)) : null,
        owner: acc.owner,
        lamports: acc.lamports,
        data,
        tree: info.tree,
        queue: info.queue,
        treeType: info.treeType,
        leafIndex: ev.outputLeafIndices[i],
        seq,
        inOutputQueue,
        proveByIndex: inOutputQueue,
        tokenData,
        path: at.path,
      });
      this.link(hash);
      const ata = ev.ataOwners.find((o) => o.outputIndex === i);
      if (ata) this.u.ataOwners.push({ hash, owner: ata.walletOwner });
    }
  }

  /** `create_state_update_v2`: the event, then the V2 input-queue entries and address-queue insertions. */
  batchTxEvent(ev: BatchTxEvent, at: TracedInstruction): void {
    this.txEvent(ev.event, at);
    const txHash = b58(ev.txHash);
    for (const input of ev.batchInputs) {
      const accountHash = b58(input.accountHash);
      let nullifier: string | null = null;
      let nullifierQueueIndex: number | null = null;
      try {
        nullifierQueueIndex = input.queueIndex === null ? null : num(input.queueIndex, 'nullifier queue index');
      } catch (e) {
        this.fail(at, `input ${accountHash}: ${errorReason(e)}`);
      }
      if (this.opts.nullifier) {
        try {
          nullifier = b58(this.opts.nullifier(input.accountHash, input.leafIndex, ev.txHash));
        } catch (e) {
          this.fail(at, `input ${accountHash}: nullifier: ${errorReason(e)}`);
        }
      }
      this.u.nullifierQueue.push({
        accountHash,
        txHash,
        nullifier,
        leafIndex: input.leafIndex,
        proveByIndex: input.proveByIndex,
        nullifierQueueIndex,
        tree: input.tree,
      });
      this.link(accountHash);
    }
    for (const a of ev.newAddresses) {
      const address = b58(a.address);
      let queueIndex: number | null = null;
      try {
        queueIndex = a.queueIndex === null ? null : num(a.queueIndex, 'address queue index');
      } catch (e) {
        this.fail(at, errorReason(e));
        continue;
      }
      this.u.newAddresses.push({ address, tree: a.tree, queue: a.queue, queueIndex });
      // V1 address trees are indexed later, from the forester's update event.
      if (queueIndex !== null) this.u.batchNewAddresses.push({ tree: a.tree, address, queueIndex });
    }
  }

  merkleTreeEvent(ev: MerkleTreeEvent, at: TracedInstruction): void {
    const signature = this.tx.signature;
    switch (ev.kind) {
      case 'nullifier':
        ev.leafIndices.forEach((leaf, i) => {
          const n = { tree: ev.tree, leafIndex: num(leaf, 'leaf index'), seq: num(ev.seq + BigInt(i), 'sequence number'), signature };
          const k = `${n.tree}:${n.leafIndex}:${n.seq}`;
          if (this.nullifications.has(k)) return;
          this.nullifications.add(k);
          this.u.leafNullifications.push(n);
        });
        return;
      case 'indexed': {
        let seq = ev.seq;
        for (const up of ev.updates) {
          for (const [leaf, hash] of [
            [up.low, up.lowHash],
            [up.high, up.highHash],
          ] as const) {
            const update: LightIndexedTreeUpdate = {
              tree: ev.tree,
              treeType: LIGHT_TREE_TYPE.AddressV1,
              leaf: {
                index: num(leaf.index, 'leaf index'),
                value: b58(leaf.value),
                nextIndex: num(leaf.nextIndex, 'next index'),
                nextValue: b58(leaf.nextValue),
              },
              hash: b58(hash),
              seq: num(seq, 'sequence number'),
              signature,
            };
            seq += 1n;
            const k = `${update.tree}:${update.leaf.index}`;
            const prev = this.indexed.get(k);
            if (!prev) {
              this.indexed.set(k, update);
              this.u.indexedTreeUpdates.push(update);
            } else if (update.seq > prev.seq) {
              this.indexed.set(k, update);
              this.u.indexedTreeUpdates[this.u.indexedTreeUpdates.indexOf(prev)] = update;
            }
          }
        }
        return;
      }
      case 'changelog':
        this.u.changelogs.push({
          tree: ev.tree,
          seq: num(ev.seq, 'sequence number'),
          index: ev.index,
          paths: ev.paths.map((p) => p.map((node) => ({ node: b58(node.node), index: node.index }))),
          path: at.path,
        });
        return;
      default:
        this.u.batchEvents.push({
          kind: ev.kind,
          tree: ev.tree,
          batchIndex: num(ev.batchIndex, 'batch index'),
          zkpBatchIndex: num(ev.zkpBatchIndex, 'zkp batch index'),
          zkpBatchSize: num(ev.zkpBatchSize, 'zkp batch size'),
          oldNextIndex: num(ev.oldNextIndex, 'old next index'),
          newNextIndex: num(ev.newNextIndex, 'new next index'),
          newRoot: b58(ev.newRoot),
          rootIndex: ev.rootIndex,
          sequenceNumber: num(ev.sequenceNumber, 'sequence number'),
          outputQueue: ev.outputQueue,
          signature,
          path: at.path,
        });
    }
  }
}
