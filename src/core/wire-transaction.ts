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

/** Parses wire bytes; throws WireFormatError on truncated or malformed input or an unsupported version. */
export function parseWireTransaction(b: Uint8Array): WireTransaction {
  let o = 0;
  const need = (n: number) => {
    if (o + n > b.length) throw new WireFormatError(`truncated at byte ${o} (needs ${n} more of ${b.length})`);
  };
  const shortvec = (): number => {
    let v = 0;
    for (let shift = 0; shift < 21; shift += 7) {
      need(1);
      const byte = b[o++];
      v |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return v;
    }
    throw new WireFormatError('shortvec longer than 3 bytes');
  };
  const bytes = (n: number) => {
    need(n);
    const s = b.subarray(o, o + n);
    o += n;
    return s;
  };
  const u8s = (n: number) => Array.from(bytes(n));

  const nsig = shortvec();
  const signatures: Uint8Array[] = [];
  for (let i = 0; i < nsig; i++) signatures.push(bytes(64));
  need(1);
  let version: 'legacy' | 0 = 'legacy';
  if (b[o] & 0x80) {
    const v = b[o] & 0x7f;
    if (v !== 0) throw new WireFormatError(`unsupported message version ${v}`);
    version = 0;
    o++;
  }
  need(3);
  const header = { numRequiredSignatures: b[o], numReadonlySignedAccounts: b[o + 1], numReadonlyUnsignedAccounts: b[o + 2] };
  o += 3;
  const nkeys = shortvec();
  const staticKeys: Uint8Array[] = [];
  for (let i = 0; i < nkeys; i++) staticKeys.push(bytes(32));
  const recentBlockhash = bytes(32);
  const nix = shortvec();
  const instructions: WireInstruction[] = [];
  for (let i = 0; i < nix; i++) {
    need(1);
    const programIdIndex = b[o++];
    const accounts = u8s(shortvec());
    const data = bytes(shortvec());
    instructions.push({ programIdIndex, accounts, data });
  }
  const addressTableLookups: WireLookup[] = [];
  if (version === 0) {
    const nl = shortvec();
    for (let i = 0; i < nl; i++) {
      const accountKey = bytes(32);
      const writableIndexes = u8s(shortvec());
      const readonlyIndexes = u8s(shortvec());
      addressTableLookups.push({ accountKey, writableIndexes, readonlyIndexes });
    }
  }
  if (o !== b.length) throw new WireFormatError(`${b.length - o} trailing bytes`);
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
