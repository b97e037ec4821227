/**
 * getValidityProof / getValidityProofV2 (helius-labs/photon src/api/method/get_validity_proof/{v1,v2}.rs): the
 * verified Merkle proofs of the accounts (state-proofs.ts) and the non-inclusion proofs of the new addresses
 * (address-proofs.ts), turned into one gnark proof by the configured prover, with the roots, root indexes
 * (root seq modulo the tree's root-history capacity), leaf indexes, leaves and trees the client's instruction needs.
 *
 * V2 answers accounts that still wait in a V2 output queue by index (`rootIndex {rootIndex: 0, proveByIndex:
 * true}`, no root) and needs no prover when nothing else is asked (`compressedProof: null`). Without a prover every
 * request that needs one answers a clear error.
 */
import type { ApiDeps } from '../deps.js';
import type { Queryable } from '../../store/db.js';
import { getAccountsByHash } from '../../store/zk/accounts.js';
import { TREE_TYPE } from '../../store/zk/types.js';
import { loadNewAddressProofs, MAX_ADDRESSES, V1_ADDRESS_TREE, type AddressProof } from './address-proofs.js';
import { zkDeps } from './deps.js';
import { validationError } from './errors.js';
import { ZERO_HASH } from './json.js';
import { addressWithTree, hash, list, pubkey, schemaParams } from './params.js';
import { ADDRESS_WITH_TREE, HASH, PUBKEY, byNameParams, nullable, type ObjectParamsSchema } from '../rpc/params-schema.js';
import { compressGnarkProof, noProverError, proverRequest, type CompressedProof } from './prover.js';
import { loadStateProofs, type StateProof } from './state-proofs.js';

/** The parsed request. */
export interface ValidityProofRequest {
  hashes: string[];
  newAddresses: { address: string; tree: string }[];
}

const HASHES = nullable({ type: 'array', items: HASH, maxItems: 1000, description: 'hashes of the accounts to prove in their state trees' });
const WITH_TREES = nullable({ type: 'array', items: ADDRESS_WITH_TREE, maxItems: MAX_ADDRESSES, description: 'new addresses to prove absent from their address trees' });

/** getValidityProof params: `{hashes?, newAddresses? (deprecated), newAddressesWithTrees?}` (params may be omitted). */
export const VALIDITY_PROOF_PARAMS = {
  ...byNameParams({
    hashes: HASHES,
    newAddresses: nullable({ type: 'array', items: PUBKEY, maxItems: MAX_ADDRESSES, description: 'deprecated: new addresses in the V1 address tree (not with newAddressesWithTrees)' }),
    newAddressesWithTrees: WITH_TREES,
  }),
  description: 'newAddresses with newAddressesWithTrees is -32000 `Validation Error`; nothing to prove is -32000 too',
};

/** getValidityProofV2 params: `{hashes?, newAddressesWithTrees?}` (params may be omitted). */
export const VALIDITY_PROOF_V2_PARAMS = {
  ...byNameParams({ hashes: HASHES, newAddressesWithTrees: WITH_TREES }),
  description: 'nothing to prove answers compressedProof null and empty lists',
};

/** V1 params: `{hashes?, newAddressesWithTrees?, newAddresses? (deprecated: addresses in the V1 address tree)}`. */
export function parseValidityProofParams(params: unknown, v2: boolean): ValidityProofRequest {
  const schema: ObjectParamsSchema = v2 ? VALIDITY_PROOF_V2_PARAMS : VALIDITY_PROOF_PARAMS;
  const p = schemaParams(params, schema);
  const hashes = list(p.hashes, 'hashes').map((h, i) => hash(h, `hashes[${i}]`));
  const withTrees = list(p.newAddressesWithTrees, 'newAddressesWithTrees').map((a, i) => addressWithTree(a, `newAddressesWithTrees[${i}]`));
  const bare = v2 ? [] : list(p.newAddresses, 'newAddresses').map((a, i) => pubkey(a, `newAddresses[${i}]`));
  if (bare.length && withTrees.length) throw validationError('Cannot provide both newAddresses and newAddressesWithTree');
  if (hashes.length > 1000) throw validationError(`Too many hashes requested ${hashes.length}. Maximum allowed: 1000`);
  return { hashes, newAddresses: bare.length ? bare.map((address) => ({ address, tree: V1_ADDRESS_TREE })) : withTrees };
}

const notFoundV1 = (found: number, expected: number) => `Leaf nodes not found for hashes. Got ${found} hashes. Expected ${expected}.`;

async function prove(deps: ApiDeps, method: string, accounts: StateProof[], addresses: AddressProof[]): Promise<CompressedProof> {
  const request = proverRequest(
    accounts.map((a) => ({ root: a.root, leafIndex: a.leafIndex, proof: a.proof, leaf: a.leaf, height: a.height })),
    addresses.map((a) => ({ ...a, height: a.height })),
  );
  const prover = zkDeps(deps).prover;
  if (!prover) throw noProverError(method);
  return compressGnarkProof(await prover.prove(request));
}

async function proofsOf(q: Queryable, req: ValidityProofRequest, hashes: string[]): Promise<[StateProof[], AddressProof[]]> {
  return Promise.all([
    loadStateProofs(q, hashes, { byIndex: false, notFound: notFoundV1 }),
    req.newAddresses.length ? loadNewAddressProofs(q, req.newAddresses) : Promise.resolve([]),
  ]);
}

/** getValidityProof's `value` (`CompressedProofWithContext`). */
export async function validityProofV1(deps: ApiDeps, req: ValidityProofRequest): Promise<Record<string, unknown>> {
  if (!req.hashes.length && !req.newAddresses.length) throw validationError('No hashes or new addresses provided for proof generation');
  const [accounts, addresses] = await proofsOf(deps.db, req, req.hashes);
  const compressedProof = await prove(deps, 'getValidityProof', accounts, addresses);
  return {
    compressedProof,
    roots: [...accounts.map((a) => a.root), ...addresses.map((a) => a.root)],
    rootIndices: [...accounts.map((a) => a.rootSeq % a.rootHistoryCapacity), ...addresses.map((a) => a.rootSeq % a.rootHistoryCapacity)],
    leafIndices: [...accounts.map((a) => a.leafIndex), ...addresses.map((a) => a.lowElementLeafIndex)],
    leaves: [...accounts.map((a) => a.hash), ...addresses.map((a) => a.address)],
    merkleTrees: [...accounts.map((a) => a.tree), ...addresses.map((a) => a.merkleTree)],
  };
}

const merkleContext = (treeType: number, tree: string, queue: string) => ({ treeType, tree, queue, cpiContext: null, nextTreeContext: null });

/** getValidityProofV2's `value` (`CompressedProofWithContextV2`). */
export async function validityProofV2(deps: ApiDeps, req: ValidityProofRequest): Promise<Record<string, unknown>> {
  if (!req.hashes.length && !req.newAddresses.length) return { compressedProof: null, accounts: [], addresses: [] };
  const live = await getAccountsByHash(deps.db, [...new Set(req.hashes)], 'unspent');
  const missing = req.hashes.filter((h) => !live.has(h));
  if (missing.length)
    throw validationError(`Not all requested account hashes exist or are available (might be spent). Missing: ${missing.slice(0, 8).join(', ')}${missing.length > 8 ? ', …' : ''}`);
  const byIndex = req.hashes.filter((h) => live.get(h)!.inOutputQueue);
  const full = req.hashes.filter((h) => !live.get(h)!.inOutputQueue);
  const [accounts, addresses] = await proofsOf(deps.db, req, full);
  const compressedProof = accounts.length || addresses.length ? await prove(deps, 'getValidityProofV2', accounts, addresses) : null;
  const proven = new Map(accounts.map((a) => [a.hash, a]));
  return {
    compressedProof,
    accounts: req.hashes.map((h) => {
      const a = live.get(h)!;
      const p = proven.get(h);
      if (!p || byIndex.includes(h))
        return { hash: h, root: ZERO_HASH, rootIndex: { rootIndex: 0, proveByIndex: true }, leafIndex: a.leafIndex, merkleContext: merkleContext(a.treeType, a.tree, a.queue) };
      return {
        hash: h,
        root: p.root,
        rootIndex: { rootIndex: p.rootSeq % p.rootHistoryCapacity, proveByIndex: false },
        leafIndex: p.leafIndex,
        merkleContext: merkleContext(p.treeType, p.tree, p.queue),
      };
    }),
    addresses: addresses.map((a) => ({
      address: a.address,
      root: a.root,
      rootIndex: a.rootSeq % a.rootHistoryCapacity,
      merkleContext: merkleContext(a.treeType === 'AddressV1' ? TREE_TYPE.AddressV1 : TREE_TYPE.AddressV2, a.merkleTree, a.queue),
    })),
  };
}
