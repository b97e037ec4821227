/** Every JSON-RPC method the gateway serves, by wire name and alias. */
import type { Call } from '../../accounts/meter.js';
import type { RpcMethod } from './method.js';
import { getIndexerSlot } from './methods/getIndexerSlot.js';
import { getAsset } from './methods/getAsset.js';
import { getAssetBatch } from './methods/getAssetBatch.js';
import { getAssetProof } from './methods/getAssetProof.js';
import { getAssetProofBatch } from './methods/getAssetProofBatch.js';
import { getSignaturesForAsset } from './methods/getSignaturesForAsset.js';
import { getTokenAccounts } from './methods/getTokenAccounts.js';
import { getNftEditions } from './methods/getNftEditions.js';
import { getAssetsByOwner } from './methods/getAssetsByOwner.js';
import { getAssetsByGroup } from './methods/getAssetsByGroup.js';
import { getAssetsByCreator } from './methods/getAssetsByCreator.js';
import { getAssetsByAuthority } from './methods/getAssetsByAuthority.js';
import { searchAssets } from './methods/searchAssets.js';
import { getGrouping } from './methods/getGrouping.js';
import { getAccountInterface } from './methods/zk/getAccountInterface.js';
import { getCompressedAccount } from './methods/zk/getCompressedAccount.js';
import { getCompressedAccountBalance } from './methods/zk/getCompressedAccountBalance.js';
import { getCompressedAccountProof } from './methods/zk/getCompressedAccountProof.js';
import { getCompressedAccountProofV2 } from './methods/zk/getCompressedAccountProofV2.js';
import { getCompressedAccountV2 } from './methods/zk/getCompressedAccountV2.js';
import { getCompressedAccountsByOwner } from './methods/zk/getCompressedAccountsByOwner.js';
import { getCompressedAccountsByOwnerV2 } from './methods/zk/getCompressedAccountsByOwnerV2.js';
import { getCompressedBalanceByOwner } from './methods/zk/getCompressedBalanceByOwner.js';
import { getCompressedMintTokenHolders } from './methods/zk/getCompressedMintTokenHolders.js';
import { getCompressedTokenAccountBalance } from './methods/zk/getCompressedTokenAccountBalance.js';
import { getCompressedTokenAccountsByDelegate } from './methods/zk/getCompressedTokenAccountsByDelegate.js';
import { getCompressedTokenAccountsByDelegateV2 } from './methods/zk/getCompressedTokenAccountsByDelegateV2.js';
import { getCompressedTokenAccountsByOwner } from './methods/zk/getCompressedTokenAccountsByOwner.js';
import { getCompressedTokenAccountsByOwnerV2 } from './methods/zk/getCompressedTokenAccountsByOwnerV2.js';
import { getCompressedTokenBalancesByOwner } from './methods/zk/getCompressedTokenBalancesByOwner.js';
import { getCompressedTokenBalancesByOwnerV2 } from './methods/zk/getCompressedTokenBalancesByOwnerV2.js';
import { getCompressionSignaturesForAccount } from './methods/zk/getCompressionSignaturesForAccount.js';
import { getCompressionSignaturesForAddress } from './methods/zk/getCompressionSignaturesForAddress.js';
import { getCompressionSignaturesForOwner } from './methods/zk/getCompressionSignaturesForOwner.js';
import { getCompressionSignaturesForTokenOwner } from './methods/zk/getCompressionSignaturesForTokenOwner.js';
import { getIndexerHealth } from './methods/zk/getIndexerHealth.js';
import { getLatestCompressionSignatures } from './methods/zk/getLatestCompressionSignatures.js';
import { getLatestNonVotingSignatures } from './methods/zk/getLatestNonVotingSignatures.js';
import { getMultipleAccountInterfaces } from './methods/zk/getMultipleAccountInterfaces.js';
import { getMultipleCompressedAccountProofs } from './methods/zk/getMultipleCompressedAccountProofs.js';
import { getMultipleCompressedAccountProofsV2 } from './methods/zk/getMultipleCompressedAccountProofsV2.js';
import { getMultipleCompressedAccounts } from './methods/zk/getMultipleCompressedAccounts.js';
import { getMultipleCompressedAccountsV2 } from './methods/zk/getMultipleCompressedAccountsV2.js';
import { getMultipleNewAddressProofs } from './methods/zk/getMultipleNewAddressProofs.js';
import { getMultipleNewAddressProofsV2 } from './methods/zk/getMultipleNewAddressProofsV2.js';
import { getQueueElements } from './methods/zk/getQueueElements.js';
import { getQueueInfo } from './methods/zk/getQueueInfo.js';
import { getTransactionWithCompressionInfo } from './methods/zk/getTransactionWithCompressionInfo.js';
import { getTransactionWithCompressionInfoV2 } from './methods/zk/getTransactionWithCompressionInfoV2.js';
import { getValidityProof } from './methods/zk/getValidityProof.js';
import { getValidityProofV2 } from './methods/zk/getValidityProofV2.js';
import { getTransactionsForAddress } from './methods/getTransactionsForAddress.js';
import { getPriorityFeeEstimate } from './methods/getPriorityFeeEstimate.js';
import { getProgramAccountsV2, getTokenAccountsByOwnerV2 } from './methods/getProgramAccountsV2.js';

/** DAS (Helius and Metaplex names). */
const DAS_METHODS: RpcMethod[] = [getAsset, getAssetBatch, getTokenAccounts, getNftEditions, getAssetProof, getAssetProofBatch, getSignaturesForAsset,
  getAssetsByOwner, getAssetsByGroup, getAssetsByCreator, getAssetsByAuthority, searchAssets, getGrouping];

/** ZK Compression (the Photon interface: its 38 methods and the getCompressedBalance alias). */
const ZK_METHODS: RpcMethod[] = [
  getIndexerSlot,
  getAccountInterface, getCompressedAccount, getCompressedAccountBalance, getCompressedAccountProof,
  getCompressedAccountProofV2, getCompressedAccountV2, getCompressedAccountsByOwner, getCompressedAccountsByOwnerV2,
  getCompressedBalanceByOwner, getCompressedMintTokenHolders, getCompressedTokenAccountBalance,
  getCompressedTokenAccountsByDelegate, getCompressedTokenAccountsByDelegateV2, getCompressedTokenAccountsByOwner,
  getCompressedTokenAccountsByOwnerV2, getCompressedTokenBalancesByOwner, getCompressedTokenBalancesByOwnerV2,
  getCompressionSignaturesForAccount, getCompressionSignaturesForAddress, getCompressionSignaturesForOwner,
  getCompressionSignaturesForTokenOwner, getIndexerHealth, getLatestCompressionSignatures,
  getLatestNonVotingSignatures, getMultipleAccountInterfaces, getMultipleCompressedAccountProofs,
  getMultipleCompressedAccountProofsV2, getMultipleCompressedAccounts, getMultipleCompressedAccountsV2,
  getMultipleNewAddressProofs, getMultipleNewAddressProofsV2, getQueueElements, getQueueInfo,
  getTransactionWithCompressionInfo, getTransactionWithCompressionInfoV2, getValidityProof, getValidityProofV2,
];

/** The RPC extensions served from the index (docs/rpc.md). */
const EXTENSION_METHODS: RpcMethod[] = [getTransactionsForAddress, getPriorityFeeEstimate, getProgramAccountsV2, getTokenAccountsByOwnerV2];

export const RPC_METHODS: RpcMethod[] = [...DAS_METHODS, ...ZK_METHODS, ...EXTENSION_METHODS];

/** Methods a batch may not carry (compat-facts-rpc §1: getTransactionsForAddress). */
export const UNBATCHABLE: ReadonlySet<string> = new Set(['getTransactionsForAddress']);

/** Whether a method is a ZK Compression one (its answers' coverage is the ZK Compression trees'). */
export const isZkMethod = (m: RpcMethod): boolean => ZK_METHODS.includes(m);

const VALIDITY_PROOF = new Set(['getValidityProof', 'getValidityProofV2']);

/** The rate-limit bucket and credit category of each method name (aliases included), for the meter. */
export function methodCalls(): Map<string, Call> {
  const out = new Map<string, Call>();
  const add = (m: RpcMethod, call: Omit<Call, 'method'>) => {
    for (const n of [m.name, ...(m.aliases ?? [])]) out.set(n, { ...call, method: m.name });
  };
  for (const m of DAS_METHODS) add(m, { bucket: 'das', cost: 'das' });
  for (const m of ZK_METHODS) add(m, VALIDITY_PROOF.has(m.name) ? { bucket: 'validityProof', cost: 'validityProof' } : { bucket: 'photon', cost: 'zk' });
  add(getTransactionsForAddress, { bucket: 'rpc', cost: 'addressHistory' });
  add(getPriorityFeeEstimate, { bucket: 'rpc', cost: 'rpc' });
  add(getProgramAccountsV2, { bucket: 'getProgramAccounts', cost: 'rpcHeavy' });
  add(getTokenAccountsByOwnerV2, { bucket: 'rpc', cost: 'rpc' });
  return out;
}

export function methodTable(methods: RpcMethod[] = RPC_METHODS): Map<string, RpcMethod> {
  const m = new Map<string, RpcMethod>();
  for (const method of methods) for (const n of [method.name, ...(method.aliases ?? [])]) {
    if (m.has(n)) throw new Error(`duplicate JSON-RPC method name ${n}`);
    m.set(n, method);
  }
  return m;
}
