/** See ./mpl-bubblegum.ts. */
export * from '@metaplex-foundation/mpl-token-metadata';
