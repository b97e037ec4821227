/**
 * The runtime side of the Poseidon WebAssembly module (generated in `poseidon-wasm-module.ts`, whose comment gives the
 * arithmetic and the memory layout): instantiation, each width's constants written into the module's memory on first
 * use, and batches of big-endian field elements in and out.
 */
import { BN254_FIELD_MODULUS as P, optimizedPoseidonParams } from './poseidon-params.js';
import {
  CONST_BASE, CONST_END, DESC_BASE, IN_BASE, IN_ELEMENTS, LIMB_BITS, LIMBS, ONE_AT, OUT_BASE, OUT_ELEMENTS, R, R2_AT, limbsOf, poseidonWasmBytes,
} from './poseidon-wasm-module.js';

export { poseidonWasmBytes };

interface Exports {
  hash(d: number, n: number, inp: number, out: number): void;
  memory: { buffer: ArrayBuffer };
}

/** The part of the WebAssembly API used here (the project's `lib` setting does not declare it). */
interface WasmApi {
  instantiate(bytes: Uint8Array): Promise<{ instance: { exports: unknown } }>;
}
const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/**
 * Where a width's constants sit in the module's memory (`optimizedPoseidonParams` in Montgomery form, 64 bytes an
 * element); the module reads them from the width's descriptor at DESC_BASE + 32·t.
 */
interface Width {
  t: number;
  /** The descriptor's address. */
  d: number;
}

/**
 * The hasher over one instance of the module. Inputs and outputs are 32-byte big-endian field elements; the
 * caller guarantees every input is below the modulus (poseidon.ts checks).
 */
export class PoseidonWasm {
  private readonly fns: Exports;
  private readonly mem: Uint8Array;
  private readonly widths = new Map<number, Width>();
  private constEnd = CONST_BASE;

  constructor(instance: { exports: unknown }) {
    this.fns = instance.exports as Exports;
    this.mem = new Uint8Array(this.fns.memory.buffer);
    this.limbs = new Uint32Array(this.fns.memory.buffer);
    this.writeLimbs(R2_AT, (R * R) % P);
    this.writeLimbs(ONE_AT, 1n);
  }

  private readonly limbs: Uint32Array;

  private writeLimbs(at: number, x: bigint): void {
    limbsOf(x).forEach((l, j) => (this.limbs[at / 4 + j] = Number(l)));
  }

  /** Writes `values` (Montgomery form) from the next free constant address; returns that address. */
  private constants(values: readonly bigint[]): number {
    const at = this.constEnd;
    const end = at + values.length * 64;
    if (end > CONST_END) throw new RangeError('Poseidon constants do not fit the module memory');
    values.forEach((x, i) => this.writeLimbs(at + 64 * i, (x * R) % P));
    this.constEnd = end;
    return at;
  }

  private width(t: number): Width {
    let w = this.widths.get(t);
    if (w === undefined) {
      const p = optimizedPoseidonParams(t);
      const d = DESC_BASE + 32 * t;
      const fields = [
        t,
        p.partialRounds,
        this.constants(p.fullConstants.flat()),
        this.constants(p.partialConstants),
        this.constants(p.mds.flat()),
        this.constants(p.preSparse.flat()),
        this.constants(p.sparseRows.flat()),
        this.constants(p.sparseColumns.flat()),
      ];
      fields.forEach((v, k) => (this.limbs[d / 4 + k] = v));
      w = { t, d };
      this.widths.set(t, w);
    }
    return w;
  }

  /**
   * Hashes `count` groups of `arity` inputs: `input` holds count·arity 32-byte big-endian elements (each below the
   * modulus), group after group; the result holds count 32-byte big-endian hashes.
   */
  hashBatch(arity: number, input: Uint8Array, count: number): Uint8Array {
    const w = this.width(arity + 1);
    const out = new Uint8Array(count * 32);
    const mem = this.mem;
    const limbs = this.limbs;
    const perCall = Math.min(OUT_ELEMENTS, Math.floor(IN_ELEMENTS / arity));
    for (let done = 0; done < count; done += perCall) {
      const n = Math.min(perCall, count - done);
      const src = done * arity * 32;
      for (let e = 0; e < n * arity; e++) {
        const from = src + e * 32;
        const to = IN_BASE + e * 32 + 31;
        for (let k = 0; k < 32; k++) mem[to - k] = input[from + k];
      }
      this.fns.hash(w.d, n, IN_BASE, OUT_BASE);
      for (let h = 0; h < n; h++) {
        // nine 29-bit limbs → 32 big-endian bytes, least significant byte first
        const base = (OUT_BASE + 64 * h) / 4;
        let pos = (done + h) * 32 + 31;
        let acc = 0;
        let bits = 0;
        for (let j = 0; j < LIMBS; j++) {
          acc += limbs[base + j] * 2 ** bits;
          bits += LIMB_BITS;
          while (bits >= 8 && pos >= (done + h) * 32) {
            out[pos--] = acc % 256;
            acc = Math.floor(acc / 256);
            bits -= 8;
          }
        }
      }
    }
    return out;
  }
}

/** Compiles and instantiates the module. */
export async function loadPoseidonWasm(): Promise<PoseidonWasm> {
  const { instance } = await wasmApi.instantiate(poseidonWasmBytes());
  return new PoseidonWasm(instance);
}
