/**
 * Instruction builders for the Address Lookup Table program (no @solana-program package for it is installed;
 * the layouts are the program's bincode enum: u32 discriminator, then fields, little-endian).
 */
import {
  AccountRole, address, getAddressEncoder, getProgramDerivedAddress, getU64Encoder, type Address, type Instruction,
} from '@solana/kit';
import { SYSTEM_PROGRAM } from '../../core/programs.js';
import { ADDRESS_LOOKUP_TABLE_PROGRAM } from './wire.js';

const ALT = address(ADDRESS_LOOKUP_TABLE_PROGRAM);
const SYSTEM = address(SYSTEM_PROGRAM);

function accounts(table: Address, authority: Address, payer: Address) {
  return [
    { address: table, role: AccountRole.WRITABLE },
    { address: authority, role: AccountRole.READONLY_SIGNER },
    { address: payer, role: AccountRole.WRITABLE_SIGNER },
    { address: SYSTEM, role: AccountRole.READONLY },
  ];
}

/**
 * `CreateLookupTable`: the table address is the PDA of (authority, recentSlot). `recentSlot` must be a slot
 * present in the SlotHashes sysvar (any produced localnet slot among the last 512).
 */
export async function getCreateLookupTableInstruction(input: {
  authority: Address;
  payer: Address;
  recentSlot: bigint;
}): Promise<{ instruction: Instruction; table: Address }> {
  const [table, bump] = await getProgramDerivedAddress({
    programAddress: ALT,
    seeds: [getAddressEncoder().encode(input.authority), getU64Encoder().encode(input.recentSlot)],
  });
  const data = new Uint8Array(13);
  const dv = new DataView(data.buffer);
  dv.setUint32(0, 0, true);
  dv.setBigUint64(4, input.recentSlot, true);
  data[12] = bump;
  return { table, instruction: { programAddress: ALT, accounts: accounts(table, input.authority, input.payer), data } };
}

/** `ExtendLookupTable`: appends addresses (usable by transactions from the next slot on). */
export function getExtendLookupTableInstruction(input: {
  table: Address;
  authority: Address;
  payer: Address;
  addresses: Address[];
}): Instruction {
  const data = new Uint8Array(12 + 32 * input.addresses.length);
  const dv = new DataView(data.buffer);
  dv.setUint32(0, 2, true);
  dv.setBigUint64(4, BigInt(input.addresses.length), true);
  input.addresses.forEach((a, i) => data.set(getAddressEncoder().encode(a), 12 + 32 * i));
  return { programAddress: ALT, accounts: accounts(input.table, input.authority, input.payer), data };
}
