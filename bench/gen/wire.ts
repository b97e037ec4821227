/**
 * Fast wire serialisation for the generator. @solana/kit compiles the messages; serialising them through kit's
 * codecs spends most of its time in BigInt base58 conversions, which would make generating a few hundred
 * mainnet-sized blocks take minutes. This writes the same bytes (legacy and v0 layouts) with a cached
 * address→bytes map; {@link checkAgainstKit} compares it with kit's encoders byte for byte.
 */
import {
  getCompiledTransactionMessageEncoder,
  getTransactionEncoder,
  type LegacyCompiledTransactionMessage,
  type V0CompiledTransactionMessage,
  type SignatureBytes,
  type Transaction,
  type TransactionMessageBytes,
} from '@solana/kit';

/** A compiled legacy or v0 message (kit also knows v1, which the RPC does not serve). */
export type Compiled = (LegacyCompiledTransactionMessage | V0CompiledTransactionMessage) & { lifetimeToken: string };

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const INDEX = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) INDEX[ALPHABET.charCodeAt(i)] = i;

/** Bytes → base58 (classic digit-array conversion; no BigInt). */
export function toBase58(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  const digits: number[] = [];
  for (let i = zeros; i < bytes.length; i++) {
    let carry = bytes[i];
    for (let j = 0; j < digits.length; j++) {
      carry += digits[j] << 8;
      digits[j] = carry % 58;
      carry = (carry / 58) | 0;
    }
    while (carry > 0) {
      digits.push(carry % 58);
      carry = (carry / 58) | 0;
    }
  }
  let out = '1'.repeat(zeros);
  for (let i = digits.length - 1; i >= 0; i--) out += ALPHABET[digits[i]];
  return out;
}

/** Base58 → bytes. */
export function fromBase58(s: string): Uint8Array {
  let zeros = 0;
  while (zeros < s.length && s[zeros] === '1') zeros++;
  const bytes: number[] = [];
  for (let i = zeros; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let carry = c < 128 ? INDEX[c] : -1;
    if (carry < 0) throw new Error(`invalid base58 character in ${s}`);
    for (let j = 0; j < bytes.length; j++) {
      carry += bytes[j] * 58;
      bytes[j] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      bytes.push(carry & 0xff);
      carry >>= 8;
    }
  }
  const out = new Uint8Array(zeros + bytes.length);
  for (let i = 0; i < bytes.length; i++) out[out.length - 1 - i] = bytes[i];
  return out;
}

const addressCache = new Map<string, Uint8Array>();

/** 32-byte public key of a base58 address (cached: the population reuses addresses constantly). */
export function addressBytes(a: string): Uint8Array {
  let b = addressCache.get(a);
  if (!b) {
    b = fromBase58(a);
    if (b.length !== 32) throw new Error(`${a} is not a 32-byte address`);
    addressCache.set(a, b);
  }
  return b;
}

/** A growable byte writer with Solana's compact-u16 ("shortvec") lengths. */
class Writer {
  buf = new Uint8Array(1280);
  n = 0;
  private room(k: number) {
    if (this.n + k <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.n + k));
    next.set(this.buf.subarray(0, this.n));
    this.buf = next;
  }
  u8(v: number) {
    this.room(1);
    this.buf[this.n++] = v;
  }
  bytes(b: Uint8Array) {
    this.room(b.length);
    this.buf.set(b, this.n);
    this.n += b.length;
  }
  shortvec(v: number) {
    for (;;) {
      const low = v & 0x7f;
      v >>= 7;
      if (v === 0) return this.u8(low);
      this.u8(low | 0x80);
    }
  }
  done(): Uint8Array {
    return this.buf.slice(0, this.n);
  }
}

/** Serialises a compiled (legacy or v0) message exactly as `getCompiledTransactionMessageEncoder` does. */
export function encodeMessage(m: Compiled): Uint8Array {
  const w = new Writer();
  if (m.version === 0) w.u8(0x80);
  else if ((m.version as unknown) !== 'legacy') throw new Error(`message version ${String(m.version)} not supported`);
  w.u8(m.header.numSignerAccounts);
  w.u8(m.header.numReadonlySignerAccounts);
  w.u8(m.header.numReadonlyNonSignerAccounts);
  w.shortvec(m.staticAccounts.length);
  for (const a of m.staticAccounts) w.bytes(addressBytes(a));
  w.bytes(addressBytes((m as unknown as { lifetimeToken: string }).lifetimeToken));
  w.shortvec(m.instructions.length);
  for (const ix of m.instructions) {
    w.u8(ix.programAddressIndex);
    const accounts = ix.accountIndices ?? [];
    w.shortvec(accounts.length);
    for (const i of accounts) w.u8(i);
    const data = (ix.data ?? new Uint8Array()) as Uint8Array;
    w.shortvec(data.length);
    w.bytes(data);
  }
  if (m.version === 0) {
    const lookups = m.addressTableLookups ?? [];
    w.shortvec(lookups.length);
    for (const l of lookups) {
      w.bytes(addressBytes(l.lookupTableAddress));
      w.shortvec(l.writableIndexes.length);
      for (const i of l.writableIndexes) w.u8(i);
      w.shortvec(l.readonlyIndexes.length);
      for (const i of l.readonlyIndexes) w.u8(i);
    }
  }
  return w.done();
}

/** Wire transaction: shortvec signature count, the 64-byte signatures, then the message. */
export function encodeTransaction(signatures: Uint8Array[], message: Uint8Array): Uint8Array {
  const w = new Writer();
  w.shortvec(signatures.length);
  for (const s of signatures) w.bytes(s);
  w.bytes(message);
  return w.done();
}

/** Throws unless this module's bytes equal @solana/kit's encoders' for `m` (run on a sample at start-up). */
export function checkAgainstKit(m: Compiled, signatures: Uint8Array[]): void {
  const ours = encodeTransaction(signatures, encodeMessage(m));
  const messageBytes = getCompiledTransactionMessageEncoder().encode(m as never) as TransactionMessageBytes;
  const sigs: Record<string, SignatureBytes> = {};
  m.staticAccounts.slice(0, m.header.numSignerAccounts).forEach((a: string, i: number) => (sigs[a] = signatures[i] as SignatureBytes));
  const kit = getTransactionEncoder().encode({ messageBytes, signatures: sigs } as unknown as Transaction);
  if (ours.length !== kit.length || ours.some((b, i) => b !== kit[i])) {
    throw new Error('bench wire encoder disagrees with @solana/kit; fix bench/gen/wire.ts');
  }
}
