/** See ./solana-kit.ts. */
export {
  COMPUTE_BUDGET_PROGRAM_ADDRESS,
  SET_COMPUTE_UNIT_PRICE_DISCRIMINATOR,
  getSetComputeUnitPriceInstructionDataDecoder,
} from '@solana-program/compute-budget';
