/**
 * The account states behind the newest one, for reads at `confirmed` or `finalized` commitment: for every slot not
 * yet finalized (the open slot included), the state each account it wrote had before that slot's first write.
 * The state at the end of slot S is then the one kept for the account's first write after S, or the current state
 * when nothing wrote it after S. Entries of finalized slots are dropped (`prune`), so what is held is the accounts
 * written in the last `confirmedDepth + finalizedDepth + 1` slots, once each per slot.
 */
import type { LocalAccount } from './types.js';

interface Entry {
  slot: number;
  before: LocalAccount | null;
}

export class AccountHistory {
  /** Per address, its entries by ascending slot. */
  private readonly byAddress = new Map<string, Entry[]>();
  /** The addresses recorded per slot, ascending (what `prune` walks). */
  private readonly bySlot: { slot: number; addresses: string[] }[] = [];

  /** Records `before`, the state of `address` before a write in `slot`, unless that slot already wrote it. */
  record(slot: number, address: string, before: LocalAccount | null): void {
    let list = this.byAddress.get(address);
    if (list && list[list.length - 1].slot === slot) return;
    if (list && list[list.length - 1].slot > slot) throw new Error(`account write in slot ${slot} after one in ${list[list.length - 1].slot}`);
    if (!list) this.byAddress.set(address, (list = []));
    list.push({ slot, before });
    const last = this.bySlot[this.bySlot.length - 1];
    if (last?.slot === slot) last.addresses.push(address);
    else this.bySlot.push({ slot, addresses: [address] });
  }

  /** The state of `address` at the end of `slot`; `current()` when nothing wrote it after that slot. */
  at(address: string, slot: number, current: () => LocalAccount | null): LocalAccount | null {
    const list = this.byAddress.get(address);
    if (list) for (const e of list) if (e.slot > slot) return e.before;
    return current();
  }

  /** Whether any account was written after `slot` (else every state at its end is the current one). */
  writtenAfter(slot: number): boolean {
    const last = this.bySlot[this.bySlot.length - 1];
    return last !== undefined && last.slot > slot;
  }

  /** The accounts written after `slot`, each once. */
  writtenSince(slot: number): string[] {
    const out = new Set<string>();
    for (let i = this.bySlot.length - 1; i >= 0 && this.bySlot[i].slot > slot; i--) for (const a of this.bySlot[i].addresses) out.add(a);
    return [...out];
  }

  /** Drops the entries of slots up to `slot` (no read will ask for a state older than its end). */
  prune(slot: number): void {
    while (this.bySlot.length && this.bySlot[0].slot <= slot) {
      const { addresses } = this.bySlot.shift()!;
      for (const a of addresses) {
        const list = this.byAddress.get(a)!;
        list.shift();
        if (!list.length) this.byAddress.delete(a);
      }
    }
  }

  /** Accounts with a kept state (for tests and diagnostics). */
  get size(): number {
    return this.byAddress.size;
  }
}
