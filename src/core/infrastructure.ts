/**
 * Addresses that appear in transactions but are never wallets: sysvars and the runtime's native and most
 * common programs. They get no address links or balance rows (they would be the hottest rows of every table).
 */
import {
  ATA_PROGRAM,
  COMPUTE_BUDGET_PROGRAM,
  MEMO_PROGRAM,
  STAKE_PROGRAM,
  SYSTEM_PROGRAM,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
  VOTE_PROGRAM,
} from './programs.js';

const INFRA = new Set<string>([
  SYSTEM_PROGRAM,
  TOKEN_PROGRAM,
  TOKEN_2022_PROGRAM,
  ATA_PROGRAM,
  COMPUTE_BUDGET_PROGRAM,
  MEMO_PROGRAM,
  VOTE_PROGRAM,
  'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo',
  'AddressLookupTab1e1111111111111111111111111',
  'BPFLoaderUpgradeab1e11111111111111111111111',
  'BPFLoader2111111111111111111111111111111111',
  'BPFLoader1111111111111111111111111111111111',
  'LoaderV411111111111111111111111111111111111',
  'Config1111111111111111111111111111111111111',
  STAKE_PROGRAM,
  'Ed25519SigVerify111111111111111111111111111',
  'KeccakSecp256k11111111111111111111111111111',
  'Secp256r1SigVerify1111111111111111111111111',
  'ZkE1Gama1Proof11111111111111111111111111111',
  'NativeLoader1111111111111111111111111111111',
]);

export function isInfrastructureAddress(a: string): boolean {
  return INFRA.has(a) || a.startsWith('Sysvar');
}
