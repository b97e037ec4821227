/** See ./solana-kit.ts. */
export {
  AuthorityType,
  TokenInstruction,
  parseTokenInstruction,
  type ParsedTokenInstruction,
} from '@solana-program/token';
