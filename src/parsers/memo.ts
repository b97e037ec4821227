/**
 * The `memo` of a transaction as agave reports it in `getSignaturesForAddress` (and as `getTransactionsForAddress`
 * repeats it): each top-level instruction of the SPL Memo program (v1 or v3) gives `"[<byte length>] <text>"` — the
 * text its data as strict UTF-8, `(unparseable)` when it is not — and several are joined with `"; "`; null when the
 * transaction has none. Inner (CPI) memo instructions do not count.
 */
import type { NormalizedTx } from '../core/model.js';
import { MEMO_PROGRAM } from '../core/programs.js';

export const MEMO_V1_PROGRAM = 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo';

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function memoData(data: Uint8Array): string {
  let text: string;
  try {
    text = utf8.decode(data);
  } catch {
    text = '(unparseable)';
  }
  return `[${data.length}] ${text}`;
}

export function transactionMemo(tx: Pick<NormalizedTx, 'accountKeys' | 'instructions'>): string | null {
  let out: string | null = null;
  for (const ix of tx.instructions) {
    const program = tx.accountKeys[ix.programIdIndex];
    if (program !== MEMO_PROGRAM && program !== MEMO_V1_PROGRAM) continue;
    const m = memoData(ix.data);
    out = out === null ? m : `${out}; ${m}`;
  }
  return out;
}
