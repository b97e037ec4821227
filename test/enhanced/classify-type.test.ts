/**
 * classifyType (what ingestion stores for the Wallet history filter) decides exactly what classifyTransaction
 * decides, on every recorded transaction the project holds (Light Protocol, mainnet block, enhanced fixtures).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { classifyTransaction, classifyType } from '../../src/enhanced/index.js';
import { parseTransaction } from '../../src/parsers/registry.js';
import { normalizeRpcTransaction } from '../../src/sources/normalize-rpc.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');

function jsonFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && !d.name.endsWith('.md'))
    .map((d) => join(d.parentPath, d.name));
}

it('classifyType equals classifyTransaction(...).type on every recorded getTransaction response', () => {
  let n = 0;
  const types = new Set<string>();
  for (const file of [...jsonFiles(join(FIXTURES, 'photon-transactions')), ...jsonFiles(join(FIXTURES, 'enhanced'))]) {
    const raw = JSON.parse(readFileSync(file, 'utf8'));
    if (!raw?.transaction || !raw?.meta) continue;
    let tx;
    try {
      tx = normalizeRpcTransaction(raw);
    } catch {
      continue; // not a getTransaction response (e.g. a recorded enhanced answer)
    }
    const events = parseTransaction(tx);
    const full = classifyTransaction(tx, events).type;
    expect(classifyType(tx, events), file).toBe(full);
    types.add(full);
    n++;
  }
  expect(n).toBeGreaterThan(200);
  expect(types.size).toBeGreaterThan(1);
});
