/**
 * The memo of getSignaturesForAddress on a real mainnet block (slot 254170887): for every transaction, solgate's memo
 * equals what the chain's own program logs say — each top-level SPL Memo invocation logs `Memo (len N): "text"`, which
 * agave reports as `[N] text`, several joined by `; ` — and memos logged by inner (CPI) invocations do not count.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { normalizeRpcBlock } from '../../src/sources/normalize-rpc.js';
import { memoData, transactionMemo } from '../../src/parsers/memo.js';

const SLOT = 254170887;
const BLOCK = join(import.meta.dirname, '..', 'fixtures', 'photon-blocks', 'index_block_metadata', String(SLOT));
const MEMO_PROGRAMS = new Set(['MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr', 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo']);

/** The top-level memos the logs record: a `Memo (len N): "…"` line directly inside a depth-1 Memo invocation. */
function memoFromLogs(logs: string[]): string | null {
  const stack: string[] = [];
  const memos: string[] = [];
  for (const line of logs) {
    const invoke = /^Program (\w+) invoke \[(\d+)\]$/.exec(line);
    if (invoke) {
      stack.length = Number(invoke[2]) - 1;
      stack.push(invoke[1]);
      continue;
    }
    if (/^Program \w+ (success|failed)/.test(line)) {
      stack.pop();
      continue;
    }
    const memo = /^Program log: Memo \(len (\d+)\): "(.*)"$/.exec(line);
    if (memo && stack.length === 1 && MEMO_PROGRAMS.has(stack[0])) memos.push(`[${memo[1]}] ${JSON.parse(`"${memo[2]}"`)}`);
  }
  return memos.length ? memos.join('; ') : null;
}

describe('transaction memos', () => {
  it('equal the memos the chain logged, on every transaction of a real mainnet block', () => {
    const raw = JSON.parse(readFileSync(BLOCK, 'utf8'));
    const block = normalizeRpcBlock(raw, SLOT);
    let withMemo = 0;
    let partial = 0;
    block.transactions.forEach((tx, i) => {
      const logs: string[] = raw.transactions[i].meta.logMessages ?? [];
      const expected = memoFromLogs(logs);
      const ran = logs.filter((l) => / invoke \[1\]$/.test(l)).length;
      if (ran === tx.instructions.length) {
        if (expected) withMemo++;
        expect(transactionMemo(tx), tx.signature).toBe(expected);
      } else {
        // A failed transaction stops at its failing instruction: the memos after it never ran (nor logged), yet
        // they are part of the message, which is what the memo reports.
        partial++;
        if (expected) expect(transactionMemo(tx)!.startsWith(expected), tx.signature).toBe(true);
      }
    });
    expect(partial).toBeGreaterThan(0);
    expect(withMemo).toBeGreaterThanOrEqual(5);
  });

  it('data that is not UTF-8 is "(unparseable)", with its byte length', () => {
    expect(memoData(new Uint8Array([0xff, 0xfe, 0x41]))).toBe('[3] (unparseable)');
    expect(memoData(new TextEncoder().encode('🦖'))).toBe('[4] 🦖');
  });
});
