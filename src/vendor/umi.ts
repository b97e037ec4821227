/** See ./mpl-bubblegum.ts. */
export * from '@metaplex-foundation/umi';
