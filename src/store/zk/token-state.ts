/**
 * The smallint codes of a compressed token account's state in `zk_token_accounts.state`: written by
 * `accounts.ts`, read back by `account-reads.ts`.
 */
export const TOKEN_STATE = { initialized: 0, frozen: 1 } as const;
