/** The shape every JSON-RPC method file exports (one method per file, registered in `registry.ts`). */
import type { ApiDeps } from '../deps.js';
import type { ObjectParamsSchema } from './params-schema.js';

export interface RpcMethod {
  /** Wire name, e.g. `getAsset`. */
  name: string;
  /** Other names the same method answers to (e.g. the Metaplex dialect). */
  aliases?: string[];
  /** Credits charged per call (plans and credits arrive with accounts/limits). */
  credits: number;
  /**
   * JSON Schema of the by-name `params`, where the method has one: the handler takes the names it accepts from it
   * (`paramNames`) and /docs/openrpc.json describes the method from it. Methods without one are listed by name only.
   */
  paramsSchema?: ObjectParamsSchema;
  /** Validates `params` (throwing SolgateError INVALID_PARAMS) and returns the `result`. */
  handler(params: unknown, deps: ApiDeps): Promise<unknown>;
}
