/** A standard method's answer from the index: its result, or undefined when the cluster must answer the call. */
import type { ApiDeps } from '../../deps.js';

export type IndexAnswer = (params: unknown, deps: ApiDeps) => Promise<unknown | undefined>;
