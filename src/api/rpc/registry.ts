/** Every JSON-RPC method the gateway serves, by wire name and alias. */
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

export const RPC_METHODS: RpcMethod[] = [getIndexerSlot, getAsset, getAssetBatch, getTokenAccounts, getNftEditions, getAssetProof, getAssetProofBatch, getSignaturesForAsset,
  getAssetsByOwner, getAssetsByGroup, getAssetsByCreator, getAssetsByAuthority, searchAssets, getGrouping];

export function methodTable(methods: RpcMethod[] = RPC_METHODS): Map<string, RpcMethod> {
  const m = new Map<string, RpcMethod>();
  for (const method of methods) for (const n of [method.name, ...(method.aliases ?? [])]) {
    if (m.has(n)) throw new Error(`duplicate JSON-RPC method name ${n}`);
    m.set(n, method);
  }
  return m;
}
