/**
 * Base58 (Bitcoin alphabet) with wide limbs: the same results as `bs58` (base-x), several times faster on the
 * lengths ingestion converts by the million (instruction data of inner instructions, 64-byte signatures).
 *
 * base-x multiplies a base-256 number by 58 once per character (and a base-58 number by 256 once per byte), one
 * byte of the accumulator per inner step. Here four characters (58^4 < 2^24) are folded in per pass over limbs of
 * 24 bits, and three bytes (2^24) per pass over limbs of four base-58 digits: every intermediate product stays
 * below 2^53, so plain doubles hold it exactly, and the inner loops run about twelve times fewer steps.
 */

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** Digit of a character code (−1: not in the alphabet). */
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGIT[ALPHABET.charCodeAt(i)] = i;
const LIMB = 0x1000000; // 2^24: a decoding limb holds three bytes
const DIGITS4 = 58 ** 4; // an encoding limb holds four base-58 digits
/** The four characters of every encoding limb value below 58^4 would be 11 M strings: built per digit instead. */
const CHAR = Array.from(ALPHABET);

/**
 * Limbs for one conversion: a module-level array reused (conversions never overlap: each runs to its end without
 * yielding), so the common short values (instruction data of a few bytes, keys, signatures) allocate only their
 * result; only the limbs below the count in use are ever read. Long values get an array of their own.
 */
const SCRATCH = new Float64Array(256);
function scratch(size: number): Float64Array {
  return size <= SCRATCH.length ? SCRATCH : new Float64Array(size);
}

/**
 * The little-endian number in `limbs[0..used)` (each limb below `base`) times `mult` plus `add`, in place; returns
 * the new count of limbs. Every product stays below 2^53 for the bases and multipliers used here.
 */
function mulAdd(limbs: Float64Array, used: number, mult: number, add: number, base: number): number {
  let carry = add;
  for (let j = 0; j < used; j++) {
    const x = limbs[j] * mult + carry;
    carry = Math.floor(x / base);
    limbs[j] = x - carry * base;
  }
  while (carry > 0) {
    const q = Math.floor(carry / base);
    limbs[used++] = carry - q * base;
    carry = q;
  }
  return used;
}

/** Base58 text → bytes; throws an Error on a character outside the alphabet (as bs58's `decode`). */
export function decodeBase58(s: string): Uint8Array {
  const n = s.length;
  let zeros = 0;
  while (zeros < n && s.charCodeAt(zeros) === 49 /* '1' */) zeros++;
  if (n - zeros >= LONG) return decodeLong(s, zeros);
  // Little-endian limbs of 24 bits; 58 < 2^5.86, so (n - zeros) characters need at most that many bits.
  const limbs = scratch(Math.ceil(((n - zeros) * 5.86) / 24) + 1);
  let used = 0;
  let i = zeros;
  while (i < n) {
    // Up to four characters as one group value and its multiplier 58^k.
    let group = 0;
    let mult = 1;
    const end = Math.min(n, i + 4);
    for (; i < end; i++) {
      const c = s.charCodeAt(i);
      const d = c < 128 ? DIGIT[c] : -1;
      if (d < 0) throw new Error('Non-base58 character');
      group = group * 58 + d;
      mult *= 58;
    }
    used = mulAdd(limbs, used, mult, group, LIMB);
  }
  // Bytes of the number, big-endian, without leading zero bytes.
  let top = 0;
  if (used > 0) {
    const high = limbs[used - 1];
    top = high >= 0x10000 ? 3 : high >= 0x100 ? 2 : 1;
  }
  const size = used === 0 ? 0 : (used - 1) * 3 + top;
  const out = new Uint8Array(zeros + size);
  let at = out.length;
  for (let j = 0; j < used; j++) {
    const v = limbs[j];
    out[--at] = v & 0xff;
    if (j < used - 1 || top > 1) out[--at] = (v >>> 8) & 0xff;
    if (j < used - 1 || top > 2) out[--at] = (v >>> 16) & 0xff;
  }
  return out;
}

/**
 * Characters from which {@link decodeLong} is used: the limb loop is quadratic in the length, BigInt arithmetic
 * (native, 64-bit digits) is not cheaper until about 200 bytes and then pulls ahead (3.6x at 700 bytes, 5x at 1,500;
 * a mainnet block carries a few inner instructions of 1-2 KB, most of the decoding's time).
 */
const LONG = 272;
const POW8 = 58n ** 8n;

/** {@link decodeBase58} of a long text (`zeros` leading '1's), through a BigInt built eight characters at a time. */
function decodeLong(s: string, zeros: number): Uint8Array {
  const n = s.length;
  let acc = 0n;
  // The first group takes what the groups of eight leave over, so every later group is a whole one.
  let i = zeros;
  let end = i + ((n - zeros) % 8 || 8);
  while (i < n) {
    let group = 0;
    for (; i < end; i++) {
      const c = s.charCodeAt(i);
      const d = c < 128 ? DIGIT[c] : -1;
      if (d < 0) throw new Error('Non-base58 character');
      group = group * 58 + d;
    }
    acc = acc * POW8 + BigInt(group);
    end = i + 8;
  }
  let hex = acc.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  const out = new Uint8Array(zeros + hex.length / 2);
  out.set(Buffer.from(hex, 'hex'), zeros);
  return out;
}

/** Bytes → base58 text (as bs58's `encode`). */
export function encodeBase58(bytes: Uint8Array): string {
  const n = bytes.length;
  let zeros = 0;
  while (zeros < n && bytes[zeros] === 0) zeros++;
  // Little-endian limbs of four base-58 digits; 256 < 58^1.366, so (n - zeros) bytes need at most that many digits.
  const limbs = scratch(Math.ceil(((n - zeros) * 1.366) / 4) + 1);
  let used = 0;
  let i = zeros;
  // The first group takes the bytes left over by a length that is not a multiple of three, so that every later
  // group is exactly three bytes.
  let take = (n - zeros) % 3 || 3;
  while (i < n) {
    let group = 0;
    let mult = 1;
    for (const end = i + take; i < end; i++) {
      group = group * 256 + bytes[i];
      mult *= 256;
    }
    take = 3;
    used = mulAdd(limbs, used, mult, group, DIGITS4);
  }
  let out = '1'.repeat(zeros);
  for (let j = used - 1; j >= 0; j--) {
    let v = limbs[j];
    const d3 = v % 58;
    v = (v - d3) / 58;
    const d2 = v % 58;
    v = (v - d2) / 58;
    const d1 = v % 58;
    const d0 = (v - d1) / 58;
    if (j < used - 1) out += CHAR[d0] + CHAR[d1] + CHAR[d2] + CHAR[d3];
    // The most significant limb without its leading zero digits.
    else if (d0) out += CHAR[d0] + CHAR[d1] + CHAR[d2] + CHAR[d3];
    else if (d1) out += CHAR[d1] + CHAR[d2] + CHAR[d3];
    else if (d2) out += CHAR[d2] + CHAR[d3];
    else out += CHAR[d3];
  }
  return out;
}
