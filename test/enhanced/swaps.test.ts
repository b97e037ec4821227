/**
 * Swaps on a recorded mainnet block (test/fixtures/photon-blocks/index_block_metadata/254170887: 602 transactions of
 * slot 254170887 as getBlock returned them, copied from helius-labs/photon). Expectations come from the block itself:
 * instruction data (swap discriminators, Raydium's amount_in argument) and the recorded pre/post balances.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { uiAmount } from '../../src/core/encoding.js';
import type { NormalizedTx } from '../../src/core/model.js';
import { classifyTransaction, type EnhancedTransaction } from '../../src/enhanced/index.js';
import { walkTransaction } from '../../src/parsers/walk.js';
import { parseTransaction } from '../../src/parsers/registry.js';
import { normalizeRpcTransaction } from '../../src/sources/normalize-rpc.js';

const RAYDIUM_V4 = '675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8';
const JUPITER_V6 = 'JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4';
const WHIRLPOOL = 'whirLbMiicVdio4qvUfM5KAg6Ct8VwpYzGff3uctyCc';
const RAYDIUM_CLMM = 'CAMMCzo5YL8w4VFF8KVHrK22GGUsp5VTaW7grrKgrWqK';
const METEORA_DLMM = 'LBUZKhRxPF3XUpBCjp4YzTKgLccjZhTSDM9YuVaPwxo';
const WSOL = 'So11111111111111111111111111111111111111112';
const PLAIN = new Set(['11111111111111111111111111111111', 'ComputeBudget111111111111111111111111111111', 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL']);

const anchor = (name: string) => createHash('sha256').update(`global:${name}`).digest().subarray(0, 8);
const startsWith = (data: Uint8Array, prefix: Uint8Array) => prefix.every((b, i) => data[i] === b);

/** Swap instructions named by the programs' public interfaces (independently of src/enhanced/programs.ts). */
function swapInstructions(tx: NormalizedTx) {
  return walkTransaction(tx).filter(
    (ix) =>
      (ix.programId === RAYDIUM_V4 && (ix.data[0] === 9 || ix.data[0] === 11)) ||
      (ix.programId === JUPITER_V6 && (startsWith(ix.data, anchor('route')) || startsWith(ix.data, anchor('shared_accounts_route')))) ||
      ([WHIRLPOOL, RAYDIUM_CLMM, METEORA_DLMM].includes(ix.programId) && startsWith(ix.data, anchor('swap'))),
  );
}

const block = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'photon-blocks', 'index_block_metadata', '254170887'), 'utf8'));
const all = (block.transactions as unknown[]).map((t) => {
  const tx = normalizeRpcTransaction({ ...(t as object), slot: 254170887, blockTime: block.blockTime });
  return { tx, e: classifyTransaction(tx, parseTransaction(tx)) as EnhancedTransaction };
});
const ok = all.filter(({ tx }) => tx.meta?.err === null);

/** The fee payer's token balance changes, per token account, from the recorded balances (WSOL excluded). */
function payerTokenDeltas(tx: NormalizedTx): Map<string, bigint> {
  const m = new Map<string, bigint>();
  const add = (list: NonNullable<NormalizedTx['meta']>['preTokenBalances'] | undefined, sign: bigint) => {
    for (const b of list ?? []) {
      if (b.owner !== tx.accountKeys[0] || b.mint === WSOL) continue;
      const k = tx.accountKeys[b.accountIndex];
      m.set(k, (m.get(k) ?? 0n) + sign * b.amount);
    }
  };
  add(tx.meta?.postTokenBalances, 1n);
  add(tx.meta?.preTokenBalances, -1n);
  for (const [k, v] of m) if (v === 0n) m.delete(k);
  return m;
}

describe('swaps in recorded mainnet block 254170887', () => {
  it('every successful transaction with a DEX or aggregator swap instruction is a SWAP', () => {
    const swaps = ok.filter(({ tx }) => swapInstructions(tx).length > 0);
    expect(swaps.length).toBeGreaterThan(30);
    for (const { tx, e } of swaps) {
      expect(e.type, tx.signature).toBe('SWAP');
      expect(e.events.swap, tx.signature).toBeDefined();
    }
  });

  it('failed swaps stay UNKNOWN without events (they only paid their fee)', () => {
    const failed = all.filter(({ tx }) => tx.meta?.err !== null && swapInstructions(tx).length > 0);
    expect(failed.length).toBeGreaterThan(50);
    for (const { e } of failed) expect([e.type, e.events.swap]).toEqual(['UNKNOWN', undefined]);
  });

  it('nothing without a swap program is a SWAP', () => {
    for (const { tx, e } of all)
      if (!walkTransaction(tx).some((ix) => [RAYDIUM_V4, JUPITER_V6, WHIRLPOOL, RAYDIUM_CLMM, METEORA_DLMM].includes(ix.programId) || !PLAIN.has(ix.programId)))
        expect(e.type, tx.signature).not.toBe('SWAP');
  });

  describe('direct Raydium AMM v4 swaps', () => {
    const direct = ok.filter(({ tx }) => {
      const outer = walkTransaction(tx).filter((ix) => ix.path.inner === null);
      return outer.some((ix) => ix.programId === RAYDIUM_V4) && outer.every((ix) => ix.programId === RAYDIUM_V4 || PLAIN.has(ix.programId));
    });

    it('are attributed to RAYDIUM with one inner swap naming the program and instruction', () => {
      expect(direct.length).toBeGreaterThan(10);
      for (const { tx, e } of direct) {
        const ix = walkTransaction(tx).find((i) => i.programId === RAYDIUM_V4)!;
        expect(e.source, tx.signature).toBe('RAYDIUM');
        expect(e.events.swap?.innerSwaps.map((s) => s.programInfo), tx.signature).toEqual([
          { source: 'RAYDIUM', account: RAYDIUM_V4, programName: 'RAYDIUM_AMM_V4', instructionName: ix.data[0] === 9 ? 'swapBaseIn' : 'swapBaseOut' },
        ]);
      }
    });

    it('token inputs and outputs are the fee payer’s recorded token balance changes', () => {
      for (const { tx, e } of direct) {
        const s = e.events.swap!;
        const expected = payerTokenDeltas(tx);
        const got = new Map<string, bigint>([
          ...s.tokenInputs.map((t) => [t.tokenAccount, -BigInt(t.rawTokenAmount.tokenAmount)] as const),
          ...s.tokenOutputs.map((t) => [t.tokenAccount, BigInt(t.rawTokenAmount.tokenAmount)] as const),
        ]);
        expect(got, tx.signature).toEqual(expected);
        for (const t of [...s.tokenInputs, ...s.tokenOutputs]) expect(t.userAccount).toBe(tx.accountKeys[0]);
      }
    });

    it('swapBaseIn: the pool received exactly the amount_in argument', () => {
      let checked = 0;
      for (const { tx, e } of direct) {
        const ix = walkTransaction(tx).find((i) => i.programId === RAYDIUM_V4)!;
        if (ix.data[0] !== 9) continue;
        const amountIn = new DataView(ix.data.buffer, ix.data.byteOffset).getBigUint64(1, true);
        const [input] = e.events.swap!.innerSwaps[0].tokenInputs;
        const decimals = tx.meta!.postTokenBalances!.find((b) => b.mint === input.mint)!.decimals;
        expect(input.tokenAmount, tx.signature).toBe(uiAmount(amountIn, decimals));
        checked++;
      }
      expect(checked).toBeGreaterThan(5);
    });

    it('SOL paid into a swap is the native input: what the pool received plus what the payer sent elsewhere (tips)', () => {
      let checked = 0;
      for (const { tx, e } of direct) {
        const s = e.events.swap!;
        const wsolIn = s.innerSwaps[0].tokenInputs.find((t) => t.mint === WSOL);
        if (!wsolIn || !s.nativeInput) continue;
        const poolLamports = BigInt(Math.round(wsolIn.tokenAmount * 1e9));
        const tokenAccounts = new Set([...(tx.meta!.preTokenBalances ?? []), ...(tx.meta!.postTokenBalances ?? [])].map((b) => tx.accountKeys[b.accountIndex]));
        // lamports the payer sent to accounts that are neither token accounts nor closed again here (a temporary wrapped-SOL account)
        const closed = new Set(tx.accountKeys.filter((_, i) => tx.meta!.postBalances[i] === 0n));
        const tips = e.nativeTransfers
          .filter((t) => t.fromUserAccount === e.feePayer && !tokenAccounts.has(t.toUserAccount) && !closed.has(t.toUserAccount))
          .reduce((a, t) => a + BigInt(t.amount), 0n);
        expect(BigInt(s.nativeInput.amount), tx.signature).toBe(poolLamports + tips);
        expect(s.nativeOutput).toBeNull();
        checked++;
      }
      expect(checked).toBeGreaterThan(3);
    });

    it('the description names what was given and what was received', () => {
      const e = direct.map((d) => d.e).find((x) => x.events.swap?.nativeInput && x.events.swap.tokenOutputs.length === 1)!;
      const out = e.events.swap!.tokenOutputs[0];
      const lamports = BigInt(e.events.swap!.nativeInput!.amount);
      const solText = `${lamports / 1_000_000_000n}.${(lamports % 1_000_000_000n).toString().padStart(9, '0')}`.replace(/\.?0+$/, '');
      expect(e.description).toBe(`${e.feePayer} swapped ${solText} SOL for ${uiAmount(BigInt(out.rawTokenAmount.tokenAmount), out.rawTokenAmount.decimals)} ${out.mint}.`);
    });
  });

  describe('Jupiter routes', () => {
    const routed = ok.filter(({ tx }) => walkTransaction(tx).some((ix) => ix.path.inner === null && ix.programId === JUPITER_V6));

    it('are attributed to JUPITER, one inner swap per DEX hop in execution order', () => {
      expect(routed.length).toBeGreaterThan(5);
      for (const { tx, e } of routed) {
        expect([e.type, e.source], tx.signature).toEqual(['SWAP', 'JUPITER']);
        const hops = swapInstructions(tx).filter((ix) => ix.programId !== JUPITER_V6).map((ix) => ix.programId);
        const listed = e.events.swap!.innerSwaps.map((s) => s.programInfo.account).filter((p) => [RAYDIUM_V4, WHIRLPOOL, RAYDIUM_CLMM, METEORA_DLMM].includes(p));
        expect(listed, tx.signature).toEqual(hops);
        for (const s of e.events.swap!.innerSwaps) {
          expect(s.tokenInputs.length, tx.signature).toBeGreaterThan(0);
          expect(s.tokenOutputs.length, tx.signature).toBeGreaterThan(0);
        }
      }
    });

    it('every DEX Jupiter invoked directly is a hop of innerSwaps, in invocation order (the whole program table on real routes)', () => {
      let hops = 0;
      for (const { tx, e } of routed) {
        const invoked = tx.innerInstructions
          .filter((g) => tx.instructions[g.index] && tx.accountKeys[tx.instructions[g.index].programIdIndex] === JUPITER_V6)
          .flatMap((g) => g.instructions)
          .filter((ix) => ix.stackHeight === 2)
          .map((ix) => tx.accountKeys[ix.programIdIndex])
          .filter((p) => !PLAIN.has(p) && p !== JUPITER_V6);
        expect(e.events.swap!.innerSwaps.map((s) => s.programInfo.account), tx.signature).toEqual(invoked);
        hops += invoked.length;
      }
      expect(hops).toBeGreaterThan(20);
    });

    it('a hop’s input is what the pool received and its output what the pool paid (different mints)', () => {
      for (const { e } of routed)
        for (const s of e.events.swap!.innerSwaps) {
          const ins = new Set(s.tokenInputs.map((t) => t.mint));
          for (const t of s.tokenOutputs) expect(ins.has(t.mint)).toBe(false);
        }
    });
  });
});
