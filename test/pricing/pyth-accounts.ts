/**
 * Real Pyth Solana Receiver PriceUpdateV2 accounts (base64 account data), as published in other projects' tests
 * (see pyth-price-update.test.ts for where each comes from and what those projects assert about it).
 */
export const PYTH_ACCOUNTS = {
  /** BONK/USD, sponsored account DBE3N8…; posted at slot 268841733 (drift-labs/protocol-v2 oracle tests). */
  bonk: {
    address: 'DBE3N8uNjhKPRHfANdwGvCZghWXyLPdqdSbEW2XFwBiX',
    mint: 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263',
    base64: 'IvEjY51+9M206svkAq6RZcKrffzb5QRNJ/KEEG+IqQv93vpfv/YMoAFysCEhfKP+aJIqGar5kBCcudhOmtAEtNICWtb1KTFEGbZFBQAAAAAABQIAAAAAAAD2////xXhYZgAAAADFeFhmAAAAAJMfBQAAAAAAnwEAAAAAAAAFMwYQAAAAAAA=',
  },
  /** USDC/USD, sponsored account Dpw1EAV…, read from mainnet at slot 414496713. */
  usdc: {
    address: 'Dpw1EAVrSB1ibxiDQyTAW6Zip3J4Btk2x4SgApQCeFbX',
    mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    base64: 'IvEjY51+9M2+k5qDCfVkBxh//zCsVLFpSYvpn22OG/1CRGgM1PfR4gHqoCDGHMR5cSgTRhzhU4lKlqbACyHtDPwnmNH5qenJSu6Y9QUAAAAAK9cAAAAAAAD4////LT7maQAAAAAsPuZpAAAAANaa9QUAAAAAE/0AAAAAAABut7QYAAAAAAA=',
  },
  /** SOL/USD, sponsored account 7UVimff…. */
  sol: {
    address: '7UVimffxr9ow1uXYxsr4LHAcV58mLzhmwaeKvJ1pjLiE',
    mint: 'So11111111111111111111111111111111111111112',
    base64: 'IvEjY51+9M1gMUcENA3t3zcf1CRyFI8kjp0abRpesqw6zYt/1dayQwHvDYtv2izrpB2hXUCV0do5Kg0vjtDGx7wPTPrIwoC1bbJMyugBAAAAQF5VAAAAAAD4////9SnJaQAAAAD1KclpAAAAABTNI+oBAAAAAylTAAAAAAD15WoYAAAAAAA=',
  },
  /** Earlier states of the same SOL/USD account (7UVimff…), from published examples: January 2025 and June 2025. */
  solJan2025: 'IvEjY51+9M1gMUcENA3t3zcf1CRyFI8kjp0abRpesqw6zYt/1dayQwHvDYtv2izrpB2hXUCV0do5Kg0vjtDGx7wPTPrIwoC1bUvhu1MEAAAA2RTJAAAAAAD4////YeWBZwAAAABg5YFnAAAAAJC1s1cEAAAAXNvRAAAAAACsXqsSAAAAAAA=',
  solJun2025: 'IvEjY51+9M1gMUcENA3t3zcf1CRyFI8kjp0abRpesqw6zYt/1dayQwHvDYtv2izrpB2hXUCV0do5Kg0vjtDGx7wPTPrIwoC1bbLod+YDAAAA6QJ4AAAAAAD4////lZpJaAAAAACVmkloAAAAAMC2EeIDAAAALL2AAAAAAADcSaEUAAAAAAA=',
  /** The BONK account with verification level Partial { numSignatures: 5 }, encoded with Pyth's receiver IDL. */
  bonkPartialFromIdl: 'IvEjY51+9M206svkAq6RZcKrffzb5QRNJ/KEEG+IqQv93vpfv/YMoAAFcrAhIXyj/miSKhmq+ZAQnLnYTprQBLTSAlrW9SkxRBm2RQUAAAAAAAUCAAAAAAAA9v///8V4WGYAAAAAxXhYZgAAAACTHwUAAAAAAJ8BAAAAAAAABTMGEAAAAAA=',
} as const;
