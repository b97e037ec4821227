/** See ./solana-kit.ts. */
export {
  SYSTEM_PROGRAM_ADDRESS,
  SystemInstruction,
  parseSystemInstruction,
} from '@solana-program/system';
