/**
 * Photon's `{context: {slot}, value}` envelope. The slot is the indexed slot (the ingest checkpoint, which moves in
 * the same transaction as the ZK rows of each block); 0 before anything was indexed (Photon's tests index a
 * synthetic slot-0 block for the same reason).
 */
import type { ApiDeps } from '../deps.js';
import { getIndexerSlot } from '../../store/zk/transactions.js';

/** The slot the answers are consistent with. */
export async function indexedSlot(deps: ApiDeps): Promise<number> {
  return (await getIndexerSlot(deps.db)) ?? 0;
}

/** `{context: {slot}, value}` with the slot read alongside the value. */
export async function withContext<T>(deps: ApiDeps, value: Promise<T>): Promise<{ context: { slot: number }; value: T }> {
  const [slot, v] = await Promise.all([indexedSlot(deps), value]);
  return { context: { slot }, value: v };
}
