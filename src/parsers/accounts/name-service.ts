/**
 * SPL Name Service records (the `.sol` domain system): pure decoding and address derivation.
 * Record layout: parent_name (32) ‖ owner (32) ‖ class (32) ‖ data. A reverse-lookup record's data is a
 * borsh string (u32 LE length ‖ UTF-8) holding the domain name.
 * Source: https://github.com/solana-labs/solana-program-library/tree/master/name-service
 */
import { createHash } from 'node:crypto';
import { getProgramDerivedAddress, type Address } from '../../vendor/solana-kit.js';
import type { AccountUpdate } from '../../core/model.js';
import { base58ToBytes, bytesToBase58 } from '../../core/encoding.js';
import { NAME_SERVICE_PROGRAM, SNS_REVERSE_LOOKUP_CLASS, SOL_TLD_AUTHORITY } from '../../core/programs.js';

const HEADER = 96;
const HASH_PREFIX = 'SPL Name Service';
const ZERO = new Uint8Array(32);

export interface DecodedNameRecord {
  address: string;
  parent: string;
  owner: string;
  class: string;
  reverseName: string | null;
}

export function decodeNameRecord(u: AccountUpdate): DecodedNameRecord | null {
  if (u.owner !== NAME_SERVICE_PROGRAM || u.data.length < HEADER) return null;
  const d = u.data;
  const cls = bytesToBase58(d.subarray(64, 96));
  let reverseName: string | null = null;
  if (cls === SNS_REVERSE_LOOKUP_CLASS && d.length >= HEADER + 4) {
    const n = new DataView(d.buffer, d.byteOffset + HEADER, 4).getUint32(0, true);
    if (n > 0 && HEADER + 4 + n <= d.length) reverseName = new TextDecoder('utf-8', { fatal: false }).decode(d.subarray(HEADER + 4, HEADER + 4 + n));
  }
  return { address: u.pubkey, parent: bytesToBase58(d.subarray(0, 32)), owner: bytesToBase58(d.subarray(32, 64)), class: cls, reverseName };
}

function hashedName(name: string): Uint8Array {
  return new Uint8Array(createHash('sha256').update(HASH_PREFIX + name).digest());
}

/** The name account of `name` under `parent` with `nameClass` (both optional, as in the program). */
export async function nameAccountKey(name: string, parent: string | null, nameClass: string | null): Promise<string> {
  const [pda] = await getProgramDerivedAddress({
    programAddress: NAME_SERVICE_PROGRAM as Address,
    seeds: [hashedName(name), nameClass ? base58ToBytes(nameClass) : ZERO, parent ? base58ToBytes(parent) : ZERO],
  });
  return pda;
}

/**
 * The name account of a `.sol` domain (`bonfida.sol`, or a subdomain `dex.bonfida.sol`); null when the text is
 * not a well-formed `.sol` name.
 */
export async function solDomainKey(domain: string): Promise<string | null> {
  const labels = domain.toLowerCase().replace(/\.sol$/, '').split('.');
  if (!domain.toLowerCase().endsWith('.sol') || labels.length < 1 || labels.length > 2 || labels.some((l) => !l)) return null;
  const parentKey = await nameAccountKey(labels[labels.length - 1], SOL_TLD_AUTHORITY, null);
  if (labels.length === 1) return parentKey;
  // Subdomains are hashed with a leading NUL under their parent domain.
  return nameAccountKey(`\0${labels[0]}`, parentKey, null);
}

/** The reverse-lookup record that stores the human-readable name of `nameAccount`. */
export function reverseLookupKey(nameAccount: string): Promise<string> {
  return nameAccountKey(nameAccount, null, SNS_REVERSE_LOOKUP_CLASS);
}
