/**
 * Token-2022 extensions (token_extensions rows, decoded with camelCase names and u64 as decimal strings) in the
 * DAS wire shape (`mint_extensions` of an asset, `extensions` of a token account): snake_case names, numbers as
 * numbers, the zero pubkey of an optional key as null, and the reference's own names where they differ.
 */
import { base64ToBytes, bytesToBase58 } from '../../core/encoding.js';

const ZERO_PUBKEY = '11111111111111111111111111111111';

/** Extension names the reference spells differently from the decoder. */
const RENAME: Record<string, string> = {
  tokenMetadata: 'metadata',
  confidentialTransferFee: 'confidential_transfer_fee_config',
};

const snake = (s: string): string => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Generic conversion: snake_case keys, integer strings → numbers, zero pubkey → null. */
function wire(v: unknown): unknown {
  if (v === ZERO_PUBKEY) return null;
  if (typeof v === 'string' && /^\d{1,20}$/.test(v)) return Number(v);
  if (Array.isArray(v)) return v.map(wire);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [snake(k), wire(x)]));
  return v;
}

function one(name: string, d: Record<string, unknown>): unknown {
  switch (name) {
    case 'tokenMetadata': {
      const extra = d.additionalMetadata;
      const pairs = Array.isArray(extra) ? extra : extra && typeof extra === 'object' ? Object.entries(extra) : [];
      return { uri: d.uri, mint: d.mint, name: d.name, symbol: d.symbol, update_authority: d.updateAuthority === ZERO_PUBKEY ? null : d.updateAuthority, additional_metadata: pairs };
    }
    case 'metadataPointer':
      // The reference does not serialise the pointer's authority.
      return { metadata_address: d.metadataAddress === ZERO_PUBKEY ? null : (d.metadataAddress ?? null) };
    case 'confidentialTransferFee':
      return {
        authority: wire(d.authority),
        withheld_amount: typeof d.withheldAmount === 'string' ? bytesToBase58(base64ToBytes(d.withheldAmount)) : d.withheldAmount,
        harvest_to_mint_enabled: d.harvestToMintEnabled,
        withdraw_withheld_authority_elgamal_pubkey: d.elgamalPubkey,
      };
    default:
      return wire(d);
  }
}

/** The extensions of one mint or token account; null when it has none. */
export function renderExtensions(rows: { extension: string; data: Record<string, unknown> }[] | undefined): Record<string, unknown> | null {
  if (!rows?.length) return null;
  const out: Record<string, unknown> = {};
  for (const r of rows) out[RENAME[r.extension] ?? snake(r.extension)] = one(r.extension, r.data);
  return out;
}
