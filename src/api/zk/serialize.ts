/**
 * Stored ZK rows in Photon's wire shapes (helius-labs/photon src/common/typedefs/account/{v1,v2}.rs,
 * token_data.rs, api/method/utils.rs): `Account` (V1), `AccountV2` (merkleContext + proveByIndex), `TokenData`,
 * `SignatureInfo(WithError)`. Optional values are written as `null`, as serde writes `None`.
 */
import type { ZkAccount, ZkSignatureInfo, ZkTokenData } from '../../store/zk/types.js';
import { base64, u64 } from './json.js';

export type Json = Record<string, unknown>;

function data(a: ZkAccount): Json | null {
  if (!a.data) return null;
  return { discriminator: u64(a.data.discriminator), data: base64(a.data.data), dataHash: a.data.dataHash };
}

/** Photon's `Account` (V1 methods). `slotCreated` may be overridden (a re-parsed transaction reports its own slot). */
export function accountV1(a: ZkAccount, slotCreated: number = a.slotCreated): Json {
  return {
    hash: a.hash,
    address: a.address,
    data: data(a),
    owner: a.owner,
    lamports: u64(a.lamports),
    tree: a.tree,
    leafIndex: a.leafIndex,
    seq: a.seq,
    slotCreated,
  };
}

/** Photon's `MerkleContextV2` of an account's tree. */
export function merkleContext(a: Pick<ZkAccount, 'tree' | 'queue' | 'treeType'>): Json {
  return { treeType: a.treeType, tree: a.tree, queue: a.queue, cpiContext: null, nextTreeContext: null };
}

/**
 * Photon's `AccountV2`: the tree moves into `merkleContext`, and `proveByIndex` says the account still waits in
 * its V2 output queue (provable by leaf index, without a validity proof).
 */
export function accountV2(a: ZkAccount, slotCreated: number = a.slotCreated): Json {
  return {
    hash: a.hash,
    address: a.address,
    data: data(a),
    owner: a.owner,
    lamports: u64(a.lamports),
    leafIndex: a.leafIndex,
    seq: a.seq,
    slotCreated,
    proveByIndex: a.inOutputQueue,
    merkleContext: merkleContext(a),
  };
}

/** Photon's `TokenData` (`state`: initialized | frozen; `tlv` base64 or null). */
export function tokenData(t: ZkTokenData): Json {
  return {
    mint: t.mint,
    owner: t.owner,
    amount: u64(t.amount),
    delegate: t.delegate,
    state: t.state,
    tlv: t.tlv ? base64(t.tlv) : null,
  };
}

/** Photon's `SignatureInfo` (block time 0 when unknown, as Photon's UnixTimestamp is never null). */
export function signatureInfo(s: ZkSignatureInfo): Json {
  return { signature: s.signature, slot: s.slot, blockTime: s.blockTime ?? 0 };
}

/** Photon's `SignatureInfoWithError` (getLatestNonVotingSignatures). */
export function signatureInfoWithError(s: ZkSignatureInfo): Json {
  return { ...signatureInfo(s), error: s.error };
}
