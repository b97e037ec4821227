/**
 * Photon reference-case harness (ZK Compression). Given the photon case list (test/fixtures/photon-snapshots/
 * cases.json, a verbatim copy of the shared fixtures' photon/cases.json) and a function that ingests a case's
 * inputs into a test gateway, it calls each query's JSON-RPC method over HTTP and compares the `result` with the
 * recorded snapshot per the fixtures README's compare rules:
 *
 * - `compare.ignorePaths` (e.g. `value.compressedProof`, randomised by the prover): removed from both sides;
 * - `compare.select` (a dotted path) / `compare.dropFields`: compare only that part of the result, with those
 *   fields removed from it (from each item when it is an array);
 * - `paginate`: call with the given `limit`, follow `value.cursor` until it is null, and compare the concatenated
 *   `value.items` with the expected bare array;
 * - `expectedDerived`: the expected value is given inline (e.g. `{value: 999998000}`): compare those members only.
 *
 * Objects compare regardless of key order, arrays in order, numbers by value. Input files are resolved against
 * test/fixtures/photon-transactions (transactions) and test/fixtures/photon-blocks (blocks, when present); a
 * query whose snapshot is not in the repository is reported as skipped.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestApp } from '../helpers/app.js';

export const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
export const PHOTON_CASES = join(FIXTURES, 'photon-snapshots', 'cases.json');

export interface PhotonInput {
  kind: 'transaction' | 'block';
  signature?: string;
  slot?: number;
  /** Upstream path, e.g. tests/data/transactions/<test>/<signature>. */
  path: string;
}

export interface PhotonCompare {
  ignorePaths?: string[];
  select?: string;
  dropFields?: string[];
}

export interface PhotonQuery {
  method: string;
  params: unknown;
  /** Upstream snapshot path; absent when the expectation is derived. */
  expected?: string | null;
  expectedDerived?: unknown;
  compare?: PhotonCompare;
  paginate?: string;
}

export interface PhotonCase {
  id: string;
  inputs: PhotonInput[];
  replay: { profile?: string; [k: string]: unknown };
  queries: PhotonQuery[];
}

export interface PhotonCaseFile {
  snapshotCases: PhotonCase[];
  assertionCases: (Omit<PhotonCase, 'queries'> & { assertions: unknown[] })[];
}

/** The case list. */
export function loadPhotonCases(file = PHOTON_CASES): PhotonCaseFile {
  return JSON.parse(readFileSync(file, 'utf8')) as PhotonCaseFile;
}

/** Where an input file lives in this repository (null when it was not copied). */
export function inputFile(input: PhotonInput): string | null {
  const m = /tests\/data\/(transactions|blocks)\/(.+)$/.exec(input.path);
  if (!m) return null;
  const file = join(FIXTURES, m[1] === 'transactions' ? 'photon-transactions' : 'photon-blocks', m[2]);
  return existsSync(file) ? file : null;
}

/** The JSON of a `.snap` file (everything after the insta header), or undefined when it is not in the repository. */
export function readSnap(upstreamPath: string): unknown {
  const file = join(FIXTURES, 'photon-snapshots', upstreamPath.split('/').pop()!);
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, 'utf8');
  return JSON.parse(text.slice(text.indexOf('\n---\n', 4) + 5));
}

/** The expected value of a query (snapshot or derived); undefined when unavailable. */
export function expectedOf(q: PhotonQuery): unknown {
  if (q.expectedDerived !== undefined) return q.expectedDerived;
  return q.expected ? readSnap(q.expected) : undefined;
}

/** A JSON-RPC call through the test app. */
export async function callRpc(ta: TestApp, method: string, params: unknown): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  const r = await ta.app.inject({ method: 'POST', url: `/?api-key=${ta.key}`, payload: { jsonrpc: '2.0', id: 'photon', method, params } });
  return r.json();
}

const clone = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));

function getPath(v: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), v);
}

function deletePath(v: unknown, path: string): void {
  const keys = path.split('.');
  const parent = getPath(v, keys.slice(0, -1).join('.')) ?? (keys.length === 1 ? v : undefined);
  if (parent && typeof parent === 'object') delete (parent as Record<string, unknown>)[keys[keys.length - 1]];
}

/** Both sides after the compare rules (deep-equal them). */
export function comparable(actual: unknown, expected: unknown, q: Pick<PhotonQuery, 'compare' | 'expectedDerived'>): { actual: unknown; expected: unknown } {
  let a = clone(actual);
  let e = clone(expected);
  for (const p of q.compare?.ignorePaths ?? []) {
    deletePath(a, p);
    deletePath(e, p);
  }
  if (q.compare?.select) {
    a = getPath(a, q.compare.select);
    e = q.expectedDerived !== undefined ? e : getPath(e, q.compare.select);
  }
  for (const f of q.compare?.dropFields ?? []) for (const side of [a, e]) for (const item of Array.isArray(side) ? side : [side]) if (item && typeof item === 'object') delete (item as Record<string, unknown>)[f];
  if (q.expectedDerived !== undefined && e && typeof e === 'object' && a && typeof a === 'object' && !Array.isArray(e)) {
    // A derived expectation names only the members it pins.
    a = Object.fromEntries(Object.keys(e as object).map((k) => [k, (a as Record<string, unknown>)[k]]));
  }
  return { actual: a, expected: e };
}

/** Calls a query's method (following cursors when it paginates) and returns the result to compare. */
export async function runQuery(ta: TestApp, q: PhotonQuery, maxPages = 1000): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
  if (!q.paginate) return callRpc(ta, q.method, q.params);
  const items: unknown[] = [];
  let cursor: unknown = null;
  for (let page = 0; page < maxPages; page++) {
    const params = { ...(q.params as Record<string, unknown>), ...(cursor !== null ? { cursor } : {}) };
    const r = await callRpc(ta, q.method, params);
    if (r.error) return r;
    const value = (r.result as { value?: { items?: unknown[]; cursor?: unknown } }).value;
    items.push(...(value?.items ?? []));
    cursor = value?.cursor ?? null;
    if (cursor === null) return { result: items };
  }
  return { error: { code: 0, message: `no last page after ${maxPages} pages` } };
}

/** One query's outcome. */
export interface QueryOutcome {
  method: string;
  status: 'match' | 'mismatch' | 'error' | 'skipped';
  actual?: unknown;
  expected?: unknown;
  reason?: string;
}

/** Ingests a case's inputs (resolved to files in this repository; null where not copied) into the test gateway. */
export type CaseIngest = (ta: TestApp, c: PhotonCase, files: (string | null)[]) => Promise<void>;

/** Runs one case: ingest, then every query compared per its rules. */
export async function runPhotonCase(ta: TestApp, c: PhotonCase, ingest: CaseIngest): Promise<QueryOutcome[]> {
  await ingest(ta, c, c.inputs.map(inputFile));
  const out: QueryOutcome[] = [];
  for (const q of c.queries) {
    const expected = expectedOf(q);
    if (expected === undefined) {
      out.push({ method: q.method, status: 'skipped', reason: `expected output ${q.expected} is not in the repository` });
      continue;
    }
    const r = await runQuery(ta, q);
    if (r.error) {
      out.push({ method: q.method, status: 'error', reason: `${r.error.code} ${r.error.message}` });
      continue;
    }
    const cmp = comparable(r.result, expected, q);
    const same = JSON.stringify(sortKeys(cmp.actual)) === JSON.stringify(sortKeys(cmp.expected));
    out.push({ method: q.method, status: same ? 'match' : 'mismatch', actual: cmp.actual, expected: cmp.expected });
  }
  return out;
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]));
  return v;
}
