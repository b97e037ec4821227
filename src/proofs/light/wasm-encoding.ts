/**
 * Just enough of the WebAssembly binary format to write a module by hand (`poseidon-wasm.ts`): LEB128 integers,
 * the value types and opcodes it uses, a function body builder (`Body`) and the section, vector and name framing.
 */

/** Unsigned LEB128. */
export function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n = Math.floor(n / 128);
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}

/** Signed LEB128. */
function sleb(value: bigint): number[] {
  const out: number[] = [];
  let v = value;
  for (;;) {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    const sign = b & 0x40;
    if ((v === 0n && !sign) || (v === -1n && sign)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

export const I32 = 0x7f;
const I64 = 0x7e;
export const OP = {
  block: 0x02, loop: 0x03, if: 0x04, else: 0x05, end: 0x0b, br_if: 0x0d, return: 0x0f, call: 0x10, select: 0x1b,
  i32_load: 0x28, i64_load: 0x29, i64_load32_u: 0x35, i64_store: 0x37, i64_store32: 0x3e,
  i32_eqz: 0x45, i32_eq: 0x46, i32_lt_u: 0x49, i32_ge_u: 0x4f,
  i32_add: 0x6a, i32_mul: 0x6c, i32_or: 0x72, i32_shl: 0x74,
  i64_add: 0x7c, i64_sub: 0x7d, i64_mul: 0x7e, i64_and: 0x83, i64_shl: 0x86, i64_shr_u: 0x88, i32_wrap_i64: 0xa7, i64_load_u: 0x29,
} as const;
export const VOID = 0x40;

/** Code of one function body. */
export class Body {
  readonly c: number[] = [];
  op(...bytes: number[]): this {
    this.c.push(...bytes);
    return this;
  }
  get(i: number): this {
    return this.op(0x20, ...uleb(i));
  }
  set(i: number): this {
    return this.op(0x21, ...uleb(i));
  }
  tee(i: number): this {
    return this.op(0x22, ...uleb(i));
  }
  i32(v: number): this {
    return this.op(0x41, ...sleb(BigInt(v)));
  }
  i64(v: bigint): this {
    return this.op(0x42, ...sleb(v));
  }
  call(f: number): this {
    return this.op(OP.call, ...uleb(f));
  }
  /** i64.load32_u at the address on the stack plus `offset`. */
  load32(offset: number): this {
    return this.op(OP.i64_load32_u, 2, ...uleb(offset));
  }
  store32(offset: number): this {
    return this.op(OP.i64_store32, 2, ...uleb(offset));
  }
  /** `local += by` (i32). */
  bump(local: number, by: number): this {
    return this.get(local).i32(by).op(OP.i32_add).set(local);
  }
  /** `base + 64 · local` (i32) on the stack. */
  elementAt(base: number, local: number): this {
    return this.i32(base).get(local).i32(6).op(OP.i32_shl, OP.i32_add);
  }
  /** Encoded body: local declarations (counts of i32 and i64 after the parameters), code, end. */
  encode(i32Locals: number, i64Locals: number): number[] {
    const groups: number[][] = [];
    if (i32Locals) groups.push([...uleb(i32Locals), I32]);
    if (i64Locals) groups.push([...uleb(i64Locals), I64]);
    const body = [...uleb(groups.length), ...groups.flat(), ...this.c, OP.end];
    return [...uleb(body.length), ...body];
  }
}

/** A module section: id, size, content. */
export function section(id: number, content: number[]): number[] {
  return [id, ...uleb(content.length), ...content];
}

/** A vector: its length, then its items. */
export const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
/** A name: its length, then its bytes. */
export const name = (s: string): number[] => [...uleb(s.length), ...Buffer.from(s, 'latin1')];
