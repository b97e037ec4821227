/**
 * Compressed token accounts: the data of compressed accounts owned by the compressed token program whose
 * discriminator is a token one. Photon `common/typedefs/{account,token_data}.rs` (`parse_token_data`,
 * `TokenData::parse`): mint, owner, amount (u64), delegate (Option<Pubkey>), state (0 initialized, 1 frozen), then an
 * optional TLV tail — a `Some` tag followed by the raw extension bytes, kept as they are.
 */
import type { Address } from '../../core/model.js';
import { readAt, tokenDataHeadDecoder } from './codecs.js';
import { bytesEqual, COMPRESSED_TOKEN_PROGRAM, TOKEN_DATA_DISCRIMINATORS } from './programs.js';
import type { LightTokenData } from './types.js';

/** Whether an account with this owner and discriminator holds token data. */
export function isTokenAccount(owner: Address, discriminator: Uint8Array): boolean {
  return owner === COMPRESSED_TOKEN_PROGRAM && TOKEN_DATA_DISCRIMINATORS.some((d) => bytesEqual(d, discriminator));
}

/** Decodes token account data. Throws on malformed data (truncated, unknown state). */
export function parseTokenData(data: Uint8Array): LightTokenData {
  const [h, end] = readAt(tokenDataHeadDecoder, data, 0);
  if (h.state > 1) throw new Error(`token account state ${h.state} is neither initialized (0) nor frozen (1)`);
  let tlv: Uint8Array | null = null;
  if (end < data.length && data[end] === 1 && end + 1 < data.length) tlv = data.slice(end + 1);
  return {
    mint: h.mint,
    owner: h.owner,
    amount: h.amount,
    delegate: h.delegate,
    state: h.state === 1 ? 'frozen' : 'initialized',
    tlv,
  };
}
