/** The shape every JSON-RPC method file exports (one method per file, registered in `registry.ts`). */
import type { ApiDeps } from '../deps.js';

export interface RpcMethod {
  /** Wire name, e.g. `getAsset`. */
  name: string;
  /** Other names the same method answers to (e.g. the Metaplex dialect). */
  aliases?: string[];
  /** Credits charged per call (plans and credits arrive with accounts/limits). */
  credits: number;
  /** Validates `params` (throwing SolgateError INVALID_PARAMS) and returns the `result`. */
  handler(params: unknown, deps: ApiDeps): Promise<unknown>;
}
