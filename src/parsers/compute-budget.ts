/**
 * The compute-unit price a transaction set (ComputeBudget `SetComputeUnitPrice`, micro-lamports per CU), decoded with
 * the @solana-program/compute-budget codec; 0 when it sets none (the runtime's default). The last such instruction
 * counts, as the runtime takes it.
 */
import { getSetComputeUnitPriceInstructionDataDecoder, SET_COMPUTE_UNIT_PRICE_DISCRIMINATOR } from '../vendor/solana-program-compute-budget.js';
import { COMPUTE_BUDGET_PROGRAM } from '../core/programs.js';
import type { NormalizedTx } from '../core/model.js';

const decoder = getSetComputeUnitPriceInstructionDataDecoder();

export function computeUnitPrice(tx: NormalizedTx): bigint {
  let price = 0n;
  for (const ix of tx.instructions) {
    if (tx.accountKeys[ix.programIdIndex] !== COMPUTE_BUDGET_PROGRAM || ix.data[0] !== SET_COMPUTE_UNIT_PRICE_DISCRIMINATOR || ix.data.length < 9) continue;
    price = decoder.decode(ix.data).microLamports;
  }
  return price;
}
