/** See ./mpl-bubblegum.ts. The account-data serializers the package's index does not export come from their files. */
export * from '@metaplex-foundation/mpl-core';
export { getAssetV1AccountDataSerializer } from '@metaplex-foundation/mpl-core/dist/src/generated/types/assetV1AccountData.js';
export { getCollectionV1AccountDataSerializer } from '@metaplex-foundation/mpl-core/dist/src/generated/types/collectionV1AccountData.js';
