/** Token-2022 extensions in the DAS wire shape. */
import { describe, expect, it } from 'vitest';
import { renderExtensions } from '../../src/api/das/mint-extensions.js';

describe('renderExtensions', () => {
  it('null without extensions; snake_case, numbers, zero pubkey as null, reference names', () => {
    expect(renderExtensions([])).toBeNull();
    expect(renderExtensions(undefined)).toBeNull();
    const out = renderExtensions([
      { extension: 'transferHook', data: { authority: 'Em34oqDQYQZ9b6ycPHD28K47mttrRsdNu1S1pgK6NtPL', programId: '11111111111111111111111111111111' } },
      { extension: 'transferFeeConfig', data: { withheldAmount: '5', newerTransferFee: { epoch: '605', maximumFee: '0', transferFeeBasisPoints: 10 } } },
      { extension: 'metadataPointer', data: { authority: 'Em34oqDQYQZ9b6ycPHD28K47mttrRsdNu1S1pgK6NtPL', metadataAddress: 'BPU5vrAHafRuVeK33CgfdwTKSsmC4p6t3aqyav3cFF7Y' } },
      { extension: 'tokenMetadata', data: { uri: 'u', mint: 'm', name: '123', symbol: 'S', updateAuthority: 'a', additionalMetadata: { k: 'v' } } },
      { extension: 'confidentialTransferFee', data: { authority: 'a', elgamalPubkey: 'e', withheldAmount: Buffer.alloc(64).toString('base64'), harvestToMintEnabled: true } },
    ]);
    expect(out).toEqual({
      transfer_hook: { authority: 'Em34oqDQYQZ9b6ycPHD28K47mttrRsdNu1S1pgK6NtPL', program_id: null },
      transfer_fee_config: { withheld_amount: 5, newer_transfer_fee: { epoch: 605, maximum_fee: 0, transfer_fee_basis_points: 10 } },
      metadata_pointer: { metadata_address: 'BPU5vrAHafRuVeK33CgfdwTKSsmC4p6t3aqyav3cFF7Y' },
      metadata: { uri: 'u', mint: 'm', name: '123', symbol: 'S', update_authority: 'a', additional_metadata: [['k', 'v']] },
      confidential_transfer_fee_config: { authority: 'a', withheld_amount: '1'.repeat(64), harvest_to_mint_enabled: true, withdraw_withheld_authority_elgamal_pubkey: 'e' },
    });
  });
});
