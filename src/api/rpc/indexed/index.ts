/**
 * The standard methods the index answers itself where it is authoritative (each file says when); every other call of
 * them, and every other standard method, goes to the cluster (src/api/rpc/standard.ts).
 */
import type { IndexAnswer } from './types.js';
import { getSignaturesForAddress } from './getSignaturesForAddress.js';

export const INDEX_ANSWERS: ReadonlyMap<string, IndexAnswer> = new Map([['getSignaturesForAddress', getSignaturesForAddress]]);
