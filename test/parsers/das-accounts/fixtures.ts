/**
 * Loads the recorded DAS fixtures (metaplex digital-asset-rpc-infrastructure): account files as `AccountUpdate`s,
 * the case table (`cases.json`) and the expected upstream outputs (`.snap` JSON after the second `---`).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { AccountUpdate } from '../../../src/core/model.js';

export const DAS = join(import.meta.dirname, '..', '..', 'fixtures', 'das');
const ACCOUNTS = join(DAS, 'decoded', 'accounts');

interface AccountFile {
  pubkey: string;
  owner: string;
  lamports: number;
  executable: boolean;
  data: [string, 'base64'];
  slot: number;
  writeVersion: number;
}

/** One decoded account file as the AccountUpdate the sources emit. */
export function loadAccount(path: string): AccountUpdate {
  const j = JSON.parse(readFileSync(path, 'utf8')) as AccountFile;
  return {
    pubkey: j.pubkey,
    owner: j.owner,
    lamports: BigInt(j.lamports),
    data: new Uint8Array(Buffer.from(j.data[0], 'base64')),
    executable: j.executable,
    slot: j.slot,
    writeVersion: BigInt(j.writeVersion),
  };
}

/** Every account file under `decoded/accounts/<case>/`, with its case folder. */
export function allAccounts(): { folder: string; file: string; account: AccountUpdate }[] {
  const out: { folder: string; file: string; account: AccountUpdate }[] = [];
  for (const folder of readdirSync(ACCOUNTS).sort()) {
    for (const file of readdirSync(join(ACCOUNTS, folder)).sort()) {
      out.push({ folder, file, account: loadAccount(join(ACCOUNTS, folder, file)) });
    }
  }
  return out;
}

interface CaseInput {
  kind: 'account' | 'transaction';
  role?: string;
  pubkey?: string;
  decoded: string;
}
interface AccountMutation {
  pubkey: string;
  slot: number;
  samePatch?: boolean;
  patch?: { range: [number, number]; newValueHex?: string }[];
}
export interface DasCase {
  id: string;
  method: string;
  params: Record<string, unknown>;
  expected: string | null;
  inputs: (CaseInput | CaseInput[])[];
  replay: { order: string; thenApplyAccountMutations?: AccountMutation[] | string };
}

export function loadCases(): DasCase[] {
  return (JSON.parse(readFileSync(join(DAS, 'cases.json'), 'utf8')) as { cases: DasCase[] }).cases;
}

/** The account inputs of a case, in order, each loaded. */
export function caseAccounts(c: DasCase): AccountUpdate[] {
  return c.inputs
    .flatMap((g) => (Array.isArray(g) ? g : [g]))
    .filter((i) => i.kind === 'account')
    .map((i) => loadAccount(join(DAS, i.decoded)));
}

/** The byte patch a case applies to one account after seeding (account_updates cases). */
export function mutationsOf(c: DasCase): Map<string, { range: [number, number]; newValueHex?: string }[]> {
  const out = new Map<string, { range: [number, number]; newValueHex?: string }[]>();
  const muts = c.replay.thenApplyAccountMutations;
  // `with-all-updates` describes in words that it applies the patches of its sibling cases.
  const all = Array.isArray(muts)
    ? muts
    : typeof muts === 'string' && c.id.startsWith('account_updates/')
      ? loadCases().flatMap((x) => (x.id.startsWith('account_updates/') && Array.isArray(x.replay.thenApplyAccountMutations) ? x.replay.thenApplyAccountMutations : []))
      : [];
  for (const m of all) if (m.patch) out.set(m.pubkey, m.patch);
  return out;
}

/** The expected JSON of a case, or null when it has none (error cases). */
export function expectedOf(c: DasCase): unknown {
  if (!c.expected) return null;
  const text = readFileSync(join(DAS, 'snapshots', basename(c.expected)), 'utf8');
  const body = text.split(/^---$/m)[2];
  return body === undefined ? null : JSON.parse(body);
}

/** Every asset object in an expected output (getAsset, getAssetBatch arrays, lists with `items`). */
export function expectedAssets(expected: unknown): Record<string, unknown>[] {
  if (expected === null || typeof expected !== 'object') return [];
  if (Array.isArray(expected)) return expected.filter((x): x is Record<string, unknown> => x !== null && typeof x === 'object');
  const o = expected as Record<string, unknown>;
  if (Array.isArray(o.items)) return o.items as Record<string, unknown>[];
  return typeof o.interface === 'string' ? [o] : [];
}
