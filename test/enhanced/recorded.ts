/** Loading of the recorded mainnet transactions in test/fixtures/enhanced, with a check that they are authentic. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { verifyOpenSsl } from '../../src/core/ed25519.js';
import { base58ToBytes } from '../../src/core/encoding.js';
import type { NormalizedTx } from '../../src/core/model.js';
import { classifyTransaction, type ClassifyContext, type EnhancedTransaction } from '../../src/enhanced/index.js';
import { parseTransaction } from '../../src/parsers/registry.js';
import { normalizeRpcTransaction } from '../../src/sources/normalize-rpc.js';

export const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'enhanced');

export interface RawJsonTx {
  slot: number;
  blockTime: number;
  meta: {
    fee: number;
    preBalances: number[];
    postBalances: number[];
    preTokenBalances: { accountIndex: number; mint: string; owner?: string; uiTokenAmount: { amount: string; decimals: number } }[];
    postTokenBalances: { accountIndex: number; mint: string; owner?: string; uiTokenAmount: { amount: string; decimals: number } }[];
  };
  transaction: {
    signatures: string[];
    message: {
      accountKeys: string[];
      header: { numRequiredSignatures: number; numReadonlySignedAccounts: number; numReadonlyUnsignedAccounts: number };
      recentBlockhash: string;
      instructions: { programIdIndex: number; accounts: number[]; data: string }[];
    };
  };
}

export function loadRecorded(name: string, ctx?: ClassifyContext): { raw: RawJsonTx; tx: NormalizedTx; e: EnhancedTransaction } {
  const raw = JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as RawJsonTx;
  const tx = normalizeRpcTransaction(raw);
  return { raw, tx, e: classifyTransaction(tx, parseTransaction(tx), ctx) };
}

const shortvec = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
};

/** Whether every signature of a recorded legacy message verifies (the copy is the signed message, byte for byte). */
export function signaturesVerify(raw: RawJsonTx): boolean {
  const m = raw.transaction.message;
  const bytes = [m.header.numRequiredSignatures, m.header.numReadonlySignedAccounts, m.header.numReadonlyUnsignedAccounts, ...shortvec(m.accountKeys.length)];
  for (const k of m.accountKeys) bytes.push(...base58ToBytes(k));
  bytes.push(...base58ToBytes(m.recentBlockhash), ...shortvec(m.instructions.length));
  for (const ix of m.instructions) {
    const d = base58ToBytes(ix.data);
    bytes.push(ix.programIdIndex, ...shortvec(ix.accounts.length), ...ix.accounts, ...shortvec(d.length), ...d);
  }
  // OpenSSL's verification whichever the gateway uses: an oracle independent of libsodium.
  const message = Uint8Array.from(bytes);
  return raw.transaction.signatures.every((s, i) => verifyOpenSsl(base58ToBytes(m.accountKeys[i]), message, base58ToBytes(s)));
}
