/**
 * Pure decoding of Libreplex inscription accounts (owner `inscokhJarcjaEs59QbQ7hYjrKz25LEPRfCbP8EmdUp`).
 * No client is published for this program, so the layouts are read by hand (Anchor accounts: an 8-byte
 * discriminator, then Borsh fields) from the program source:
 * https://github.com/LibrePlex/libreplex-program-library/blob/main/programs/libreplex_inscriptions/src/state/inscription.rs
 * (discriminators from the program IDL, `target/types/libreplex_inscriptions.ts`):
 *
 * - `Inscription` (v1): authority Pubkey, root Pubkey, media_type MediaType, encoding_type EncodingType,
 *   inscription_data Pubkey, order u64, size u32, validation_hash Option<String>.
 *   `MediaType` = enum { None, Audio{subtype}, Application{subtype}, Image{subtype}, Video{subtype},
 *   Text{subtype}, Custom{media_type}, Erc721 } (u8 tag + a Borsh String for the ones with a field);
 *   `EncodingType` = enum { None, Base64 }.
 * - `InscriptionV3`: authority, root, inscription_data Pubkey, order u64, size u32, content_type String,
 *   encoding String, validation_hash Option<String>.
 * - The inscription data account has no header at all: the program writes content bytes at offset 0
 *   (`Inscription::write_data`), so any other account of the program without a known discriminator is data.
 *
 * For v1 accounts `contentType` / `encoding` use the crate's `MediaType::convert_to_string` /
 * `EncodingType::convert_to_string`; v3 accounts store both as strings. DAS renders only v3 accounts, as the
 * reference does (`api/das/inscription.ts`).
 */
import bs58 from 'bs58';
import type { AssetParseFailed, InscriptionAccount, InscriptionDataAccount } from '../asset-account-types.js';

/** Libreplex inscriptions program id. */
export const INSCRIPTIONS_PROGRAM = 'inscokhJarcjaEs59QbQ7hYjrKz25LEPRfCbP8EmdUp';

/** Anchor discriminators (sha256("account:<Name>")[0..8]) from the program IDL. */
const DISC = {
  inscription: [100, 11, 151, 42, 228, 38, 69, 187],
  inscriptionV3: [232, 120, 205, 47, 153, 239, 229, 224],
  inscriptionSummary: [189, 189, 190, 90, 73, 71, 253, 107],
  inscriptionRankPage: [192, 133, 192, 195, 42, 49, 155, 198],
  migrator: [74, 71, 185, 52, 75, 186, 114, 78],
  inscriptionData: [44, 58, 66, 156, 82, 136, 80, 64],
} as const;

const MEDIA_PREFIX = ['', 'audio/', 'application/', 'image/', 'video/', 'text/'] as const;
const CUSTOM = 6;
const ERC721 = 7;

const hasPrefix = (data: Uint8Array, d: readonly number[]): boolean => data.length >= 8 && d.every((b, i) => data[i] === b);

/** A bounds-checked little-endian Borsh reader; every read throws on truncated data. */
class Reader {
  private off: number;
  private readonly view: DataView;
  constructor(private readonly data: Uint8Array, start: number) {
    this.off = start;
    this.view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  }
  private take(n: number): number {
    if (this.off + n > this.data.length) throw new Error(`truncated at ${this.off} (+${n})`);
    const at = this.off;
    this.off += n;
    return at;
  }
  u8(): number {
    return this.view.getUint8(this.take(1));
  }
  u32(): number {
    return this.view.getUint32(this.take(4), true);
  }
  u64(): bigint {
    return this.view.getBigUint64(this.take(8), true);
  }
  pubkey(): string {
    const at = this.take(32);
    return bs58.encode(this.data.subarray(at, at + 32));
  }
  string(): string {
    const len = this.u32();
    const at = this.take(len);
    return new TextDecoder('utf-8', { fatal: true }).decode(this.data.subarray(at, at + len));
  }
  optionString(): string | null {
    const tag = this.u8();
    if (tag === 0) return null;
    if (tag !== 1) throw new Error(`bad option tag ${tag}`);
    return this.string();
  }
}

/** `MediaType` → its MIME string (`convert_to_string`). */
function mediaType(r: Reader): string {
  const tag = r.u8();
  if (tag === 0) return '';
  if (tag === ERC721) return 'application/erc721';
  if (tag === CUSTOM) return r.string();
  const prefix = MEDIA_PREFIX[tag];
  if (prefix === undefined) throw new Error(`unknown media type ${tag}`);
  return prefix + r.string();
}

function encodingType(r: Reader): string {
  const tag = r.u8();
  if (tag === 0) return '';
  if (tag === 1) return 'base64';
  throw new Error(`unknown encoding type ${tag}`);
}

/**
 * Decodes an account of the inscriptions program: `inscription` (v1 or v3), `inscription.data` (raw content),
 * null for the program's bookkeeping accounts (summary, rank pages, migrators), `parse.failed` for a truncated
 * or malformed inscription. Never throws.
 */
export function decodeInscriptionAccount(
  address: string,
  data: Uint8Array,
): InscriptionAccount | InscriptionDataAccount | AssetParseFailed | null {
  try {
    if (hasPrefix(data, DISC.inscription)) {
      const r = new Reader(data, 8);
      const authority = r.pubkey();
      const root = r.pubkey();
      const contentType = mediaType(r);
      const encoding = encodingType(r);
      const inscriptionData = r.pubkey();
      const order = r.u64();
      const size = r.u32();
      const validationHash = r.optionString();
      return { kind: 'inscription', address, version: 1, authority, root, inscriptionData, order, size, contentType, encoding, validationHash };
    }
    if (hasPrefix(data, DISC.inscriptionV3)) {
      const r = new Reader(data, 8);
      const authority = r.pubkey();
      const root = r.pubkey();
      const inscriptionData = r.pubkey();
      const order = r.u64();
      const size = r.u32();
      const contentType = r.string();
      const encoding = r.string();
      const validationHash = r.optionString();
      return { kind: 'inscription', address, version: 3, authority, root, inscriptionData, order, size, contentType, encoding, validationHash };
    }
    if (hasPrefix(data, DISC.inscriptionSummary) || hasPrefix(data, DISC.inscriptionRankPage) || hasPrefix(data, DISC.migrator)) {
      return null;
    }
    // Data accounts are headerless; one created through Anchor would carry the (empty) InscriptionData header.
    const body = hasPrefix(data, DISC.inscriptionData) ? data.subarray(8) : data;
    return { kind: 'inscription.data', address, data: Buffer.from(body).toString('base64') };
  } catch (e) {
    return { kind: 'parse.failed', address, owner: INSCRIPTIONS_PROGRAM, reason: e instanceof Error ? e.message : String(e) };
  }
}
