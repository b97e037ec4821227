/**
 * Every recorded Photon fixture transaction parses without a failure, with the trees Photon's tests pre-seed, and
 * yields the transaction row and account links Photon keeps.
 */
import { describe, expect, it } from 'vitest';
import { parseLightTransaction } from '../../../src/parsers/light/index.js';
import { folder, folders, TREES } from './helpers.js';

describe('Light parser on every Photon fixture transaction', () => {
  for (const name of folders()) {
    it(`${name}: no failure, no unknown tree, a compression transaction row`, () => {
      const txs = folder(name);
      expect(txs.length).toBeGreaterThan(0);
      for (const tx of txs) {
        const u = parseLightTransaction(tx, { trees: TREES });
        expect(u.failures, tx.signature).toEqual([]);
        expect(u.unknownTrees, tx.signature).toEqual([]);
        expect(u.transaction, tx.signature).toEqual({
          signature: tx.signature,
          slot: tx.slot,
          blockTime: tx.blockTime,
          usesCompression: true,
          error: null,
        });
        // Photon links every consumed and created hash to the transaction.
        const linked = new Set(u.accountTransactions.map((l) => l.hash));
        for (const h of [...u.inputAccountHashes, ...u.outputAccounts.map((a) => a.hash)]) expect(linked.has(h), h).toBe(true);
        expect(u.accountTransactions.every((l) => l.signature === tx.signature)).toBe(true);
        for (const a of u.outputAccounts) {
          // V1 outputs carry the tree's sequence number; V2 outputs wait in the output queue instead.
          expect(a.seq === null, a.hash).toBe(a.treeType === 3);
          expect(a.inOutputQueue).toBe(a.treeType === 3);
          expect(a.proveByIndex).toBe(a.inOutputQueue);
        }
      }
    });
  }

  it('a failed transaction changes nothing and keeps no row (Photon skips it)', () => {
    const [tx] = folder('e2e_mint_and_transfer_transactions');
    const failedTx = { ...tx, meta: { ...tx.meta!, err: { InstructionError: [1, { Custom: 1 }] } } };
    const u = parseLightTransaction(failedTx, { trees: TREES });
    expect(u.transaction).toBeNull();
    expect(u.outputAccounts).toEqual([]);
    expect(u.inputAccountHashes).toEqual([]);
    expect(u.accountTransactions).toEqual([]);
    expect(u.failures).toEqual([]);
  });

  it('outputs in trees the lookup does not know are left out and their tree or queue named', () => {
    const [v1] = folder('e2e_mint_and_transfer_transactions');
    const u1 = parseLightTransaction(v1);
    expect(u1.outputAccounts).toEqual([]);
    expect(u1.unknownTrees).toEqual(['smt1NamzXdq4AMqS2fS2F1i5KTYPZRhoHgWx38d8WsT']);
    expect(u1.transaction?.usesCompression).toBe(true);
    // V2 transactions name the output queue, not the tree.
    const [v2] = folder('four_cpi_events');
    expect(parseLightTransaction(v2).unknownTrees).toEqual(['6L7SzhYB3anwEQ9cphpJ1U7Scwj57bx2xueReg7R9cKU']);
  });
});
