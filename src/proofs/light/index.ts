/**
 * Light Protocol (ZK Compression) tree maths: Poseidon, zero hashes and node indexes of trees up to height 40,
 * state-tree proofs, indexed (address) trees with Photon's non-inclusion proofs, and compressed account / token
 * data hashes. Pure and synchronous once `initPoseidon()` has been awaited.
 */
export * from './poseidon.js';
export * from './trees.js';
export * from './merkle-proof.js';
export * from './sparse-tree.js';
export * from './indexed-tree.js';
export * from './account-hash.js';
