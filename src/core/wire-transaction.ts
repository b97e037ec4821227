/**
 * Reads a transaction in the Solana wire format (legacy and v0 messages) in one pass, straight from the bytes.
 * Ingestion decodes every transaction of every block, so this avoids building intermediate objects; the layout
 * is the one kit's `getTransactionDecoder`/`getCompiledTransactionMessageDecoder` implement (tests compare the
 * two on recorded transactions). Layout: https://solana.com/docs/core/transactions#transaction-structure
 */
export interface WireInstruction {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
}

export interface WireLookup {
  accountKey: Uint8Array;
  writableIndexes: number[];
  readonlyIndexes: number[];
}

export interface WireTransaction {
  signatures: Uint8Array[];
  version: 'legacy' | 0;
  header: { numRequiredSignatures: number; numReadonlySignedAccounts: number; numReadonlyUnsignedAccounts: number };
  staticKeys: Uint8Array[];
  recentBlockhash: Uint8Array;
  instructions: WireInstruction[];
  addressTableLookups: WireLookup[];
}

export class WireFormatError extends Error {}

/** Read position over the bytes (module-level helpers: no closures allocated per transaction). */
interface Cursor {
  b: Uint8Array;
  o: number;
}

function need(c: Cursor, n: number): void {
  if (c.o + n > c.b.length) throw new WireFormatError(`truncated at byte ${c.o} (needs ${n} more of ${c.b.length})`);
}

function shortvec(c: Cursor): number {
  let v = 0;
  for (let shift = 0; shift < 21; shift += 7) {
    need(c, 1);
    const byte = c.b[c.o++];
    v |= (byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return v;
  }
  throw new WireFormatError('shortvec longer than 3 bytes');
}

function bytes(c: Cursor, n: number): Uint8Array {
  need(c, n);
  const s = c.b.subarray(c.o, c.o + n);
  c.o += n;
  return s;
}

function u8s(c: Cursor, n: number): number[] {
  need(c, n);
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = c.b[c.o + i];
  c.o += n;
  return out;
}

/** Parses wire bytes; throws WireFormatError on truncated or malformed input or an unsupported version. */
export function parseWireTransaction(b: Uint8Array): WireTransaction {
  const c: Cursor = { b, o: 0 };
  const nsig = shortvec(c);
  const signatures: Uint8Array[] = [];
  for (let i = 0; i < nsig; i++) signatures.push(bytes(c, 64));
  need(c, 1);
  let version: 'legacy' | 0 = 'legacy';
  if (b[c.o] & 0x80) {
    const v = b[c.o] & 0x7f;
    if (v !== 0) throw new WireFormatError(`unsupported message version ${v}`);
    version = 0;
    c.o++;
  }
  need(c, 3);
  const header = { numRequiredSignatures: b[c.o], numReadonlySignedAccounts: b[c.o + 1], numReadonlyUnsignedAccounts: b[c.o + 2] };
  c.o += 3;
  const nkeys = shortvec(c);
  const staticKeys: Uint8Array[] = [];
  for (let i = 0; i < nkeys; i++) staticKeys.push(bytes(c, 32));
  const recentBlockhash = bytes(c, 32);
  const nix = shortvec(c);
  const instructions: WireInstruction[] = [];
  for (let i = 0; i < nix; i++) {
    need(c, 1);
    const programIdIndex = b[c.o++];
    const accounts = u8s(c, shortvec(c));
    const data = bytes(c, shortvec(c));
    instructions.push({ programIdIndex, accounts, data });
  }
  const addressTableLookups: WireLookup[] = [];
  if (version === 0) {
    const nl = shortvec(c);
    for (let i = 0; i < nl; i++) {
      const accountKey = bytes(c, 32);
      const writableIndexes = u8s(c, shortvec(c));
      const readonlyIndexes = u8s(c, shortvec(c));
      addressTableLookups.push({ accountKey, writableIndexes, readonlyIndexes });
    }
  }
  if (c.o !== b.length) throw new WireFormatError(`${b.length - c.o} trailing bytes`);
  return { signatures, version, header, staticKeys, recentBlockhash, instructions, addressTableLookups };
}

/** True when every instruction invokes `programId` (given as raw key bytes), e.g. a pure vote transaction. */
export function onlyInvokes(tx: WireTransaction, programId: Uint8Array): boolean {
  if (tx.instructions.length === 0) return false;
  for (const ix of tx.instructions) {
    const k = tx.staticKeys[ix.programIdIndex];
    if (!k || k.length !== 32) return false;
    for (let i = 0; i < 32; i++) if (k[i] !== programId[i]) return false;
  }
  return true;
}
