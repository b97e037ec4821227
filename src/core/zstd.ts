/**
 * Zstandard frames for the `base64+zstd` encodings (the localnet's accounts, transactionSubscribe). Node's zlib has
 * zstd from 22.15 / 23.8 on and is used when present; elsewhere the bytes go into a valid frame of raw (stored)
 * blocks, which every zstd decoder reads back to the same bytes (RFC 8878 §3.1.1: frame header with single-segment
 * content size, `Raw_Block`s of at most 128 KiB, no checksum).
 */
import * as zlib from 'node:zlib';

const MAGIC = [0x28, 0xb5, 0x2f, 0xfd];
const MAX_BLOCK = 128 * 1024;

type Compress = (data: Uint8Array) => Uint8Array;
const native = (zlib as unknown as { zstdCompressSync?: (b: Uint8Array) => Buffer }).zstdCompressSync;

/** A zstd frame of stored blocks holding `data` (no compression). */
export function storedZstdFrame(data: Uint8Array): Uint8Array {
  const n = data.length;
  // Frame_Header_Descriptor: Single_Segment_flag (0x20) with a 1/2/4/8-byte Frame_Content_Size (flag bits 6-7).
  let fcs: number[];
  let fcsFlag: number;
  if (n < 256) {
    fcs = [n];
    fcsFlag = 0;
  } else if (n < 65536 + 256) {
    const v = n - 256;
    fcs = [v & 255, v >> 8];
    fcsFlag = 1;
  } else {
    fcs = [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, (n >>> 24) & 255];
    fcsFlag = 2;
  }
  const parts: number[] = [...MAGIC, (fcsFlag << 6) | 0x20, ...fcs];
  const blocks = Math.max(1, Math.ceil(n / MAX_BLOCK));
  const out = new Uint8Array(parts.length + blocks * 3 + n);
  out.set(parts);
  let o = parts.length;
  for (let b = 0; b < blocks; b++) {
    const start = b * MAX_BLOCK;
    const size = Math.min(MAX_BLOCK, n - start);
    // Block_Header (3 bytes LE): Last_Block bit, Block_Type 0 (Raw), Block_Size.
    const header = (b === blocks - 1 ? 1 : 0) | (size << 3);
    out[o++] = header & 255;
    out[o++] = (header >> 8) & 255;
    out[o++] = (header >> 16) & 255;
    out.set(data.subarray(start, start + size), o);
    o += size;
  }
  return out;
}

/** Compresses `data` into one zstd frame. */
export const zstdCompress: Compress = native ? (data) => new Uint8Array(native(data)) : storedZstdFrame;
