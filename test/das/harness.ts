/**
 * Replays a DAS reference case (test/fixtures/das/cases.json) into a fresh database through the same path as
 * `solgate replay`, calls its JSON-RPC method through the HTTP app, and returns the result to compare with the
 * reference's recorded output (the `.snap` JSON).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { base58ToBytes } from '../../src/core/encoding.js';
import { replayInto } from '../../src/ingest/replay.js';
import type { TestApp } from '../helpers/app.js';

export const DAS_DIR = join(import.meta.dirname, '..', 'fixtures', 'das');

export interface DasInput {
  kind: 'account' | 'transaction';
  decoded: string;
}

export interface DasCase {
  id: string;
  method: string;
  params: unknown;
  /** Snapshot path, or null when the case expects an error (`expectError` says which). */
  expected: string | null;
  expectError?: string;
  replay: { order: 'forward' | 'allPermutations'; thenApplyAccountMutations?: RawMutation[] | string };
  inputs: DasInput[][];
  thenApplyAccountMutations?: unknown;
  preSeedDb?: unknown;
}

export function loadCases(): DasCase[] {
  return (JSON.parse(readFileSync(join(DAS_DIR, 'cases.json'), 'utf8')) as { cases: DasCase[] }).cases;
}

/** The expected result: the JSON after the snapshot header; null when the case expects an error. */
export function expectedOf(c: DasCase): unknown {
  if (c.expected === null) return null;
  const file = join(DAS_DIR, 'snapshots', c.expected.split('/').pop()!);
  const text = readFileSync(file, 'utf8');
  const body = text.slice(text.indexOf('\n---\n', 4) + 5);
  return JSON.parse(body);
}

/** Input groups in the given order, each group applied as one unit (an NFT seed is mint, metadata, token account). */
export async function applyInputs(ta: TestApp, groups: DasInput[][]): Promise<void> {
  for (const g of groups) await replayInto(ta.t.db, g.map((i) => join(DAS_DIR, i.decoded)));
}

export async function callRpc(ta: TestApp, method: string, params: unknown): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  const r = await ta.app.inject({ method: 'POST', url: `/?api-key=${ta.key}`, payload: { jsonrpc: '2.0', id: 'das', method, params } });
  return r.json();
}

/** A byte patch of `thenApplyAccountMutations` (fixtures README §3.3). */
interface BytePatch {
  range: [number, number];
  newValueHex?: string;
  newValueBase58?: string;
}

interface RawMutation {
  pubkey: string;
  slot: number;
  expect: string;
  patch?: BytePatch[];
  samePatch?: boolean;
}

/** One account update to send after the inputs: the input account with `patch` applied, at `slot`. */
export interface AccountMutation {
  pubkey: string;
  slot: number;
  patch: BytePatch[];
  /** The update is older than the stored state: the method's answer must not change. */
  stale: boolean;
}

function resolve(raw: RawMutation[]): AccountMutation[] {
  const last = new Map<string, BytePatch[]>();
  return raw.map((m) => {
    const patch = m.samePatch ? (last.get(m.pubkey) ?? []) : (m.patch ?? []);
    last.set(m.pubkey, patch);
    return { pubkey: m.pubkey, slot: m.slot, patch, stale: m.expect.startsWith('rejected') };
  });
}

/**
 * The mutation sequences of a case, each to run on a fresh database after the inputs: `[[]]` without mutations.
 * The prose form of `account_updates/with-all-updates` is the metadata and token patches of the sibling cases
 * plus an unchanged re-send of the mint, at slots 4, 3, 2, in each of the 3 rotations.
 */
export function mutationVariants(c: DasCase, all: DasCase[]): AccountMutation[][] {
  const raw = c.replay.thenApplyAccountMutations;
  if (raw === undefined) return [[]];
  if (Array.isArray(raw)) return [resolve(raw)];
  const accepted = (id: string) => {
    const sib = all.find((x) => x.id === id)?.replay.thenApplyAccountMutations;
    if (!Array.isArray(sib)) throw new Error(`${c.id}: sibling case ${id} has no mutations`);
    return resolve(sib).find((m) => !m.stale)!;
  };
  const mint = c.inputs.flat().find((i) => (i as DasInput & { role?: string }).role === 'nft-mint') as (DasInput & { pubkey: string }) | undefined;
  if (!mint) throw new Error(`${c.id}: no nft-mint input`);
  const updates = [accepted('account_updates/metadata-updated'), accepted('account_updates/token-updated'), { pubkey: mint.pubkey, slot: 0, patch: [], stale: false }];
  const slots = [4, 3, 2];
  return [1, 2, 3].map((r) => [...updates.slice(r), ...updates.slice(0, r)].map((m, i) => ({ ...m, slot: slots[i] })));
}

/** Sends one mutated account update (the case's input file for that account, patched) through replay. */
export async function applyMutation(ta: TestApp, c: DasCase, m: AccountMutation): Promise<void> {
  const input = c.inputs.flat().find((i) => (i as DasInput & { pubkey?: string }).pubkey === m.pubkey);
  if (!input) throw new Error(`${c.id}: no input account ${m.pubkey}`);
  const acc = JSON.parse(readFileSync(join(DAS_DIR, input.decoded), 'utf8')) as { data: [string, string]; slot: number };
  const data = Buffer.from(acc.data[0], 'base64');
  for (const p of m.patch) {
    const bytes = p.newValueHex !== undefined ? Buffer.from(p.newValueHex, 'hex') : base58ToBytes(p.newValueBase58!);
    if (bytes.length !== p.range[1] - p.range[0]) throw new Error(`${c.id}: patch ${JSON.stringify(p.range)} has ${bytes.length} bytes`);
    data.set(bytes, p.range[0]);
  }
  const dir = mkdtempSync(join(tmpdir(), 'das-mut-'));
  const file = join(dir, `${m.pubkey}.json`);
  writeFileSync(file, JSON.stringify({ ...acc, data: [data.toString('base64'), 'base64'], slot: m.slot }));
  try {
    await replayInto(ta.t.db, [file]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
