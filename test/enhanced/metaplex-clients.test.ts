/**
 * MPL Core and Token Metadata instruction decoding, checked against instructions built by the programs' official
 * generated clients (@metaplex-foundation/mpl-core and mpl-token-metadata, from the public IDLs): the discriminator
 * and account positions the classifier reads must name what the client was asked to build. Nothing is sent: no
 * recorded MPL Core transaction is available to these tests, so this is how its table is checked.
 */
import { createCollectionV1, burnV1 as coreBurnV1, createV1 as coreCreateV1, mplCore, transferV1 as coreTransferV1, updateV1 as coreUpdateV1 } from '@metaplex-foundation/mpl-core';
import {
  TokenStandard, burnV1, createMasterEditionV3, createMetadataAccountV3, createV1, mintV1, mplTokenMetadata, transferV1, updateMetadataAccountV2, findMetadataPda,
} from '@metaplex-foundation/mpl-token-metadata';
import { generateSigner, none, percentAmount, signerIdentity, type Instruction, type TransactionBuilder } from '@metaplex-foundation/umi';
import { createUmi } from '@metaplex-foundation/umi-bundle-defaults';
import { describe, expect, it } from 'vitest';
import { mplCoreOperations } from '../../src/enhanced/mpl-core.js';
import { tokenMetadataOperations } from '../../src/enhanced/token-metadata.js';
import type { TracedInstruction } from '../../src/parsers/events.js';

const umi = createUmi('http://127.0.0.1:1').use(mplCore()).use(mplTokenMetadata());
const payer = generateSigner(umi);
umi.use(signerIdentity(payer));

const traced = (b: TransactionBuilder): TracedInstruction[] =>
  b.getInstructions().map((ix: Instruction, outer) => ({
    path: { outer, inner: null },
    programId: ix.programId.toString(),
    accounts: ix.keys.map((k) => k.pubkey.toString()),
    data: ix.data,
  }));

describe('MPL Core instructions built by the official client', () => {
  const asset = generateSigner(umi);
  const owner = generateSigner(umi).publicKey;

  it('CreateV1 → NFT_MINT of the asset, to the given owner', () => {
    const ops = mplCoreOperations(traced(coreCreateV1(umi, { asset, name: 'n', uri: 'https://u', owner })));
    expect(ops).toEqual([expect.objectContaining({ type: 'NFT_MINT', mint: asset.publicKey.toString(), newOwner: owner.toString(), instructionName: 'createV1' })]);
  });

  it('CreateV1 without an owner → the payer owns it', () => {
    const ops = mplCoreOperations(traced(coreCreateV1(umi, { asset, name: 'n', uri: 'https://u' })));
    expect(ops[0]).toMatchObject({ type: 'NFT_MINT', newOwner: payer.publicKey.toString() });
  });

  it('CreateCollectionV1 → CREATE_COLLECTION', () => {
    const collection = generateSigner(umi);
    expect(mplCoreOperations(traced(createCollectionV1(umi, { collection, name: 'c', uri: 'https://u' })))).toEqual([
      expect.objectContaining({ type: 'CREATE_COLLECTION', mint: collection.publicKey.toString() }),
    ]);
  });

  it('TransferV1 → TRANSFER to the new owner; BurnV1 → BURN_NFT; UpdateV1 → UPDATE', () => {
    const a = asset.publicKey;
    expect(mplCoreOperations(traced(coreTransferV1(umi, { asset: a, newOwner: owner })))[0]).toMatchObject({ type: 'TRANSFER', mint: a.toString(), newOwner: owner.toString() });
    expect(mplCoreOperations(traced(coreBurnV1(umi, { asset: a })))[0]).toMatchObject({ type: 'BURN_NFT', mint: a.toString() });
    expect(mplCoreOperations(traced(coreUpdateV1(umi, { asset: a, newName: 'x' })))[0]).toMatchObject({ type: 'UPDATE', mint: a.toString() });
  });
});

describe('Token Metadata instructions built by the official client', () => {
  const mint = generateSigner(umi);
  const m = mint.publicKey.toString();
  const owner = generateSigner(umi).publicKey;

  it('Create (V1) with a non-fungible standard → NFT_MINT, its standard read from the instruction', () => {
    for (const [standard, name] of [[TokenStandard.NonFungible, 'NonFungible'], [TokenStandard.ProgrammableNonFungible, 'ProgrammableNonFungible']] as const) {
      const ops = tokenMetadataOperations(traced(createV1(umi, { mint, name: 'n', uri: 'https://u', sellerFeeBasisPoints: percentAmount(5), tokenStandard: standard })));
      expect(ops).toEqual([expect.objectContaining({ type: 'NFT_MINT', mint: m, tokenStandard: name, needsNftProof: false })]);
    }
  });

  it('Create (V1) of a fungible token still needs proof that it is an NFT', () => {
    const ops = tokenMetadataOperations(traced(createV1(umi, { mint, name: 'n', uri: 'https://u', sellerFeeBasisPoints: percentAmount(0), tokenStandard: TokenStandard.Fungible })));
    expect(ops[0]).toMatchObject({ mint: m, tokenStandard: 'Fungible', needsNftProof: true });
  });

  it('CreateMetadataAccountV3 + CreateMasterEditionV3 name the same mint, the latter as a master edition', () => {
    const ops = tokenMetadataOperations([
      ...traced(createMetadataAccountV3(umi, { mint: mint.publicKey, mintAuthority: payer, data: { name: 'n', symbol: '', uri: 'https://u', sellerFeeBasisPoints: 0, creators: none(), collection: none(), uses: none() }, isMutable: true, collectionDetails: none() })),
      ...traced(createMasterEditionV3(umi, { mint: mint.publicKey, mintAuthority: payer, maxSupply: 0 })),
    ]);
    expect(ops.map((o) => [o.instructionName, o.mint, o.masterEdition ?? false])).toEqual([
      ['createMetadataAccountV3', m, false],
      ['createMasterEdition', m, true],
    ]);
  });

  it('Mint (V1) → the mint and the token owner', () => {
    const ops = tokenMetadataOperations(traced(mintV1(umi, { mint: mint.publicKey, tokenOwner: owner, amount: 1, tokenStandard: TokenStandard.NonFungible })));
    expect(ops[0]).toMatchObject({ type: 'NFT_MINT', mint: m, owner: owner.toString() });
  });

  it('Transfer (V1) → TRANSFER to the destination owner; Burn (V1) → BURN_NFT', () => {
    const t = tokenMetadataOperations(traced(transferV1(umi, { mint: mint.publicKey, authority: payer, tokenOwner: payer.publicKey, destinationOwner: owner, tokenStandard: TokenStandard.ProgrammableNonFungible })));
    expect(t[0]).toMatchObject({ type: 'TRANSFER', mint: m, owner: payer.publicKey.toString(), newOwner: owner.toString() });
    const b = tokenMetadataOperations(traced(burnV1(umi, { mint: mint.publicKey, authority: payer, tokenOwner: payer.publicKey, tokenStandard: TokenStandard.NonFungible })));
    expect(b[0]).toMatchObject({ type: 'BURN_NFT', mint: m });
  });

  it('UpdateMetadataAccountV2 → UPDATE of the metadata account', () => {
    const metadata = findMetadataPda(umi, { mint: mint.publicKey })[0];
    const ops = tokenMetadataOperations(traced(updateMetadataAccountV2(umi, { metadata, data: none(), newUpdateAuthority: none(), primarySaleHappened: none(), isMutable: none() })));
    expect(ops[0]).toMatchObject({ type: 'UPDATE', mint: metadata.toString() });
  });
});
