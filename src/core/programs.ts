/** Well-known program and account addresses (mainnet ids; identical on every cluster). */
export const SYSTEM_PROGRAM = '11111111111111111111111111111111';
export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
export const ATA_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
export const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
export const VOTE_PROGRAM = 'Vote111111111111111111111111111111111111111';
export const STAKE_PROGRAM = 'Stake11111111111111111111111111111111111111';
export const MEMO_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
export const NAME_SERVICE_PROGRAM = 'namesLPneVptA9Z5rqUDD9tMTWEJwofgaYwp8cawRkX';
/** Parent of every `.sol` domain name account. */
export const SOL_TLD_AUTHORITY = '58PwtjSDuFHuUkYjH9BYnnQKHfwo9reZhC2zMJv9JPkx';
/** Class of reverse-lookup records (name account → domain string). */
export const SNS_REVERSE_LOOKUP_CLASS = '33m47vH6Eav6jr6vXPJUVCXhmz4wPh6hMbZAtWqBaSJs';

/** Wrapped SOL mint; the Wallet API reports native SOL with this mint. */
export const NATIVE_MINT = 'So11111111111111111111111111111111111111112';
export const NATIVE_DECIMALS = 9;

export const TOKEN_PROGRAMS: ReadonlySet<string> = new Set([TOKEN_PROGRAM, TOKEN_2022_PROGRAM]);

/** Wallet API label of a token program. */
export function tokenProgramLabel(programId: string): 'spl-token' | 'token-2022' {
  return programId === TOKEN_2022_PROGRAM ? 'token-2022' : 'spl-token';
}
