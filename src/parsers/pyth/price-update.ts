/**
 * Pyth pull-oracle price accounts: `PriceUpdateV2`, the account the Pyth Solana Receiver program
 * (`rec5EKMGg6MxZYaMdyBfgwp4d5rB9T1VQH5pJv5LtFJ`) writes a verified price update into. The sponsored "push" feeds
 * (e.g. SOL/USD at `7UVimffxr9ow1uXYxsr4LHAcV58mLzhmwaeKvJ1pjLiE`) are such accounts, kept current by Pyth.
 * Pure decoding with `@solana/kit` codecs.
 *
 * Layout (Anchor account, borsh; pyth-crosschain `pyth_solana_receiver_sdk/src/price_update.rs` and
 * `pythnet_sdk::messages::PriceFeedMessage`):
 *   discriminator [8] = sha256("account:PriceUpdateV2")[0..8]
 *   write_authority: Pubkey
 *   verification_level: enum { Partial { num_signatures: u8 } = 0, Full = 1 }   (1 or 2 bytes: borsh)
 *   price_message: { feed_id [32], price i64, conf u64, exponent i32, publish_time i64, prev_publish_time i64,
 *                    ema_price i64, ema_conf u64 }
 *   posted_slot: u64
 * Anchor allocates the larger enum variant (134 bytes), so a `Full` account ends with one unused byte: fields after
 * the enum are read sequentially, never at fixed offsets.
 */
import { createHash } from 'node:crypto';
import {
  fixDecoderSize, getAddressDecoder, getBytesDecoder, getDiscriminatedUnionDecoder, getI32Decoder, getI64Decoder,
  getStructDecoder, getU64Decoder, getU8Decoder, getUnitDecoder,
} from '../../vendor/solana-kit.js';
import type { AccountUpdate } from '../../core/model.js';

export const PYTH_RECEIVER_PROGRAM = 'rec5EKMGg6MxZYaMdyBfgwp4d5rB9T1VQH5pJv5LtFJ';
/** The program whose PDAs (seeds: shard id u16 LE, feed id) are the sponsored price feed accounts. */
export const PYTH_PUSH_ORACLE_PROGRAM = 'pythWSnswVUd12oZpeFP8e9CVaEqJg25g1Vtc2biRsT';
/** Pyth's SOL/USD feed id (hex). */
export const PYTH_SOL_USD_FEED_ID = 'ef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d';

/** Anchor account discriminator of `PriceUpdateV2`. */
export const PRICE_UPDATE_V2_DISCRIMINATOR: Uint8Array = new Uint8Array(
  createHash('sha256').update('account:PriceUpdateV2').digest().subarray(0, 8),
);

export type VerificationLevel = { kind: 'full' } | { kind: 'partial'; numSignatures: number };

export interface PriceUpdateV2 {
  writeAuthority: string;
  verification: VerificationLevel;
  /** Hex, 64 characters, no 0x. */
  feedId: string;
  price: bigint;
  conf: bigint;
  exponent: number;
  /** Unix seconds. */
  publishTime: bigint;
  prevPublishTime: bigint;
  emaPrice: bigint;
  emaConf: bigint;
  postedSlot: bigint;
}

const decoder = getStructDecoder([
  ['discriminator', fixDecoderSize(getBytesDecoder(), 8)],
  ['writeAuthority', getAddressDecoder()],
  [
    'verificationLevel',
    getDiscriminatedUnionDecoder(
      [
        ['Partial', getStructDecoder([['numSignatures', getU8Decoder()]])],
        ['Full', getUnitDecoder()],
      ],
      { size: getU8Decoder() },
    ),
  ],
  ['feedId', fixDecoderSize(getBytesDecoder(), 32)],
  ['price', getI64Decoder()],
  ['conf', getU64Decoder()],
  ['exponent', getI32Decoder()],
  ['publishTime', getI64Decoder()],
  ['prevPublishTime', getI64Decoder()],
  ['emaPrice', getI64Decoder()],
  ['emaConf', getU64Decoder()],
  ['postedSlot', getU64Decoder()],
]);

const hex = (b: ArrayLike<number>) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

/** Decodes `PriceUpdateV2` account data; null when it is not one (wrong discriminator, truncated, unknown enum tag). */
export function decodePriceUpdateV2(data: Uint8Array): PriceUpdateV2 | null {
  if (data.length < 8 || !PRICE_UPDATE_V2_DISCRIMINATOR.every((b, i) => data[i] === b)) return null;
  let v: ReturnType<typeof decoder.decode>;
  try {
    v = decoder.decode(data);
  } catch {
    return null;
  }
  const level = v.verificationLevel as { __kind: 'Partial'; numSignatures: number } | { __kind: 'Full' };
  return {
    writeAuthority: v.writeAuthority,
    verification: level.__kind === 'Full' ? { kind: 'full' } : { kind: 'partial', numSignatures: level.numSignatures },
    feedId: hex(v.feedId),
    price: v.price,
    conf: v.conf,
    exponent: v.exponent,
    publishTime: v.publishTime,
    prevPublishTime: v.prevPublishTime,
    emaPrice: v.emaPrice,
    emaConf: v.emaConf,
    postedSlot: v.postedSlot,
  };
}

/** A Pyth Receiver account update holding a price update (null for anything else, closed accounts included). */
export function decodePythAccount(u: AccountUpdate): (PriceUpdateV2 & { account: string; slot: number }) | null {
  if (u.owner !== PYTH_RECEIVER_PROGRAM || u.data.length === 0) return null;
  const p = decodePriceUpdateV2(u.data);
  return p ? { ...p, account: u.pubkey, slot: u.slot } : null;
}

/** `price · 10^exponent` as a JS number (Pyth prices carry ~8–10 significant digits; a double holds them). */
export function pythPriceValue(price: bigint, exponent: number): number {
  return Number(price) * 10 ** exponent;
}
