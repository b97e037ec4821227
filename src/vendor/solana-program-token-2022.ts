/** See ./solana-kit.ts. */
export {
  AccountState,
  AuthorityType,
  ExtensionType,
  Token2022Instruction,
  getMintDecoder,
  getTokenDecoder,
  parseToken2022Instruction,
  type ParsedToken2022Instruction,
} from '@solana-program/token-2022';
