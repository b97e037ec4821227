/**
 * Notifications at a commitment stronger than the index's: a transactionSubscribe asking `finalized` from an index
 * that follows `confirmed` gets each transaction once the cluster has finalized its slot. The cluster's finalized slot
 * is read (`getSlot` finalized) only while some notification waits for it.
 */
import { orderedChain } from '../../core/ordered-chain.js';
import type { UpstreamRpc } from '../../core/upstream.js';

export interface FinalityGate {
  /** Resolves once the cluster's finalized slot has reached `slot`. */
  wait(slot: number): Promise<void>;
}

export function createFinalityGate(upstream: UpstreamRpc, pollMs = 400): FinalityGate {
  let finalized = -1;
  const waiters: { slot: number; resolve: () => void }[] = [];
  let polling = false;

  async function poll(): Promise<void> {
    polling = true;
    try {
      while (waiters.length) {
        try {
          const r = await upstream.forward('getSlot', [{ commitment: 'finalized' }], 0, true);
          if (typeof r.result === 'number') finalized = Math.max(finalized, r.result);
        } catch {
          // the cluster unreachable: the waiters wait
        }
        for (let i = waiters.length - 1; i >= 0; i--)
          if (waiters[i].slot <= finalized) {
            waiters[i].resolve();
            waiters.splice(i, 1);
          }
        if (waiters.length) await new Promise((r) => setTimeout(r, pollMs));
      }
    } finally {
      polling = false;
    }
  }

  return {
    wait(slot) {
      if (slot <= finalized) return Promise.resolve();
      return new Promise<void>((resolve) => {
        waiters.push({ slot, resolve });
        if (!polling) void poll();
      });
    },
  };
}

/** Most notifications one subscription may have waiting for finality before it is ended. */
const MAX_WAITING = 10_000;

/**
 * Wraps a subscription's sender so each transaction goes out, in order, once its slot is finalized; more than
 * MAX_WAITING waiting ends the subscription through `fail`.
 */
export function afterFinality<T extends { slot: number }>(gate: FinalityGate, deliver: (x: T) => void, fail: (e: Error) => void): (x: T) => void {
  const chain = orderedChain(
    MAX_WAITING, () => new Error(`more than ${MAX_WAITING} notifications wait for the cluster to finalize their slots; subscribe again`), fail,
  );
  return (x) =>
    chain.add(() => async () => {
      await gate.wait(x.slot);
      if (!chain.ended) deliver(x);
    });
}
