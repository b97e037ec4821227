/**
 * Replays a DAS reference case (test/fixtures/das/cases.json) into a fresh database through the same path as
 * `solgate replay`, calls its JSON-RPC method through the HTTP app, and returns the result to compare with the
 * reference's recorded output (the `.snap` JSON).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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
  replay: { order: 'forward' | 'allPermutations' };
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
