/**
 * Recorded getTransaction responses (test/fixtures/photon-transactions: Light Protocol transactions on a test
 * validator, copied from helius-labs/photon) through normalizeRpcTransaction and the classifier. Every expectation is
 * read from the recorded JSON itself: the wire message (fee payer, outer programs) and the execution meta (fee,
 * pre/post lamport and token balances).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { getCompiledTransactionMessageDecoder, getTransactionDecoder } from '@solana/kit';
import { describe, expect, it } from 'vitest';
import { base64ToBytes, bytesToBase58 } from '../../src/core/encoding.js';
import { classifyTransaction } from '../../src/enhanced/index.js';
import type { EnhancedTransaction } from '../../src/enhanced/index.js';
import { parseTransaction } from '../../src/parsers/registry.js';
import { normalizeRpcTransaction } from '../../src/sources/normalize-rpc.js';

const ROOT = join(import.meta.dirname, '..', 'fixtures', 'photon-transactions');

interface RawTokenBalance { accountIndex: number; mint: string; owner?: string; uiTokenAmount: { amount: string; decimals: number } }
interface Raw {
  slot: number;
  blockTime: number;
  transaction: [string, 'base64'];
  meta: { err: unknown; fee: number; preBalances: number[]; postBalances: number[]; preTokenBalances?: RawTokenBalance[]; postTokenBalances?: RawTokenBalance[]; loadedAddresses?: { writable: string[]; readonly: string[] } };
}

const files = readdirSync(ROOT, { recursive: true, withFileTypes: true })
  .filter((d) => d.isFile())
  .map((d) => join(d.parentPath, d.name));

const all = files.map((file) => {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Raw;
  const tx = normalizeRpcTransaction(raw);
  const e = classifyTransaction(tx, parseTransaction(tx));
  const wire = getTransactionDecoder().decode(base64ToBytes(raw.transaction[0]));
  const msg = getCompiledTransactionMessageDecoder().decode(wire.messageBytes);
  if (msg.version === 1) throw new Error(`${file}: v1 messages are not recorded here`);
  const keys: string[] = [...msg.staticAccounts, ...(raw.meta.loadedAddresses?.writable ?? []), ...(raw.meta.loadedAddresses?.readonly ?? [])];
  const outerPrograms = msg.instructions.map((ix) => keys[ix.programAddressIndex]);
  const firstSig = bytesToBase58(Object.values(wire.signatures)[0] as Uint8Array);
  return { file: file.slice(ROOT.length + 1), raw, e, keys, outerPrograms, firstSig };
});

/** Net lamports per account implied by nativeTransfers, with the fee charged to the fee payer. */
function impliedNative(e: EnhancedTransaction): Map<string, number> {
  const m = new Map<string, number>([[e.feePayer, -e.fee]]);
  for (const t of e.nativeTransfers) {
    m.set(t.fromUserAccount, (m.get(t.fromUserAccount) ?? 0) - t.amount);
    m.set(t.toUserAccount, (m.get(t.toUserAccount) ?? 0) + t.amount);
  }
  return m;
}

describe('recorded Light Protocol getTransaction responses', () => {
  it('loads them all', () => expect(all.length).toBeGreaterThan(200));

  it('header fields: signature, slot, timestamp, fee and fee payer as recorded; no error', () => {
    for (const { file, raw, e, keys, firstSig } of all) {
      expect(e.signature, file).toBe(firstSig);
      expect(e.slot, file).toBe(raw.slot);
      expect(e.timestamp, file).toBe(raw.blockTime);
      expect(e.fee, file).toBe(raw.meta.fee);
      expect(e.feePayer, file).toBe(keys[0]);
      expect(e.transactionError, file).toBeNull();
    }
  });

  it('the Light programs are not classified: UNKNOWN from source UNKNOWN, transfers still listed', () => {
    const plain = new Set(['11111111111111111111111111111111', 'ComputeBudget111111111111111111111111111111', 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA']);
    for (const { file, e, outerPrograms } of all) {
      expect(outerPrograms.some((p) => !plain.has(p)), file).toBe(true);
      expect([e.type, e.source, e.description], file).toEqual(['UNKNOWN', 'UNKNOWN', '']);
    }
    expect(all.filter(({ e }) => e.nativeTransfers.length > 0).length).toBeGreaterThan(100);
  });

  it('accountData: one entry per account key with post - pre lamports', () => {
    for (const { file, raw, e, keys } of all) {
      expect(e.accountData.map((a) => a.account), file).toEqual(keys);
      expect(e.accountData.map((a) => a.nativeBalanceChange), file).toEqual(raw.meta.postBalances.map((p, i) => p - raw.meta.preBalances[i]));
    }
  });

  it('nativeTransfers plus the fee explain every lamport balance change', () => {
    for (const { file, e } of all) {
      const implied = impliedNative(e);
      for (const a of e.accountData) expect(implied.get(a.account) ?? 0, `${file} ${a.account}`).toBe(a.nativeBalanceChange);
      for (const [acc, v] of implied) expect(e.accountData.find((a) => a.account === acc)?.nativeBalanceChange ?? 0, `${file} ${acc}`).toBe(v);
      for (const t of e.nativeTransfers) expect(t.amount, file).toBeGreaterThan(0);
    }
  });

  it('token balance changes and minted amounts match the recorded token balances', () => {
    const withTokens = all.filter(({ raw }) => (raw.meta.postTokenBalances ?? []).length > 0);
    expect(withTokens.length).toBe(2);
    for (const { file, raw, e, keys } of withTokens) {
      const pre = new Map((raw.meta.preTokenBalances ?? []).map((b) => [b.accountIndex, BigInt(b.uiTokenAmount.amount)]));
      const changed = (raw.meta.postTokenBalances ?? []).filter((b) => BigInt(b.uiTokenAmount.amount) !== (pre.get(b.accountIndex) ?? 0n));
      expect(changed.length, file).toBeGreaterThan(0);
      const listed = e.accountData.flatMap((a) => a.tokenBalanceChanges.map((c) => ({ entry: a.account, ...c })));
      expect(listed, file).toEqual(
        changed.map((b) => ({
          entry: keys[b.accountIndex],
          userAccount: b.owner,
          tokenAccount: keys[b.accountIndex],
          mint: b.mint,
          rawTokenAmount: { tokenAmount: (BigInt(b.uiTokenAmount.amount) - (pre.get(b.accountIndex) ?? 0n)).toString(), decimals: b.uiTokenAmount.decimals },
        })),
      );
      // The tokens came from a mint (no token account lost any): one transfer per changed account, from nowhere.
      for (const b of changed) expect(BigInt(b.uiTokenAmount.amount) > (pre.get(b.accountIndex) ?? 0n), file).toBe(true);
      expect(e.tokenTransfers, file).toEqual(
        changed.map((b) => ({
          fromUserAccount: '',
          toUserAccount: b.owner,
          fromTokenAccount: '',
          toTokenAccount: keys[b.accountIndex],
          tokenAmount: Number(BigInt(b.uiTokenAmount.amount) - (pre.get(b.accountIndex) ?? 0n)) / 10 ** b.uiTokenAmount.decimals,
          mint: b.mint,
          tokenStandard: 'Fungible',
        })),
      );
    }
  });

  it('instructions: every outer instruction with its recorded inner instructions, data in base58', () => {
    for (const { file, raw, e, keys, outerPrograms } of all) {
      expect(e.instructions.map((i) => i.programId), file).toEqual(outerPrograms);
      const inner = (raw.meta as unknown as { innerInstructions: { index: number; instructions: { programIdIndex: number; accounts: number[]; data: string }[] }[] }).innerInstructions;
      e.instructions.forEach((ix, i) => {
        const recorded = inner.filter((g) => g.index === i).flatMap((g) => g.instructions);
        expect(ix.innerInstructions, `${file} #${i}`).toEqual(recorded.map((r) => ({ accounts: r.accounts.map((a) => keys[a]), data: r.data, programId: keys[r.programIdIndex] })));
      });
    }
  });
});
