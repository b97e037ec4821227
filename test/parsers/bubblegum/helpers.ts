/**
 * Loading the recorded DAS fixtures for the Bubblegum parser tests: the Geyser-style transaction records, the
 * case manifest, and the expected (upstream) getAsset / searchAssets outputs.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { NormalizedTx } from '../../../src/core/model.js';
import { normalizeGeyserTransaction } from '../../../src/sources/normalize-rpc.js';

export const DAS = join(import.meta.dirname, '..', '..', 'fixtures', 'das');

const readJson = (p: string): unknown => JSON.parse(readFileSync(p, 'utf8'));

/** Every recorded transaction, by `<case folder>/<signature>`. */
export function allDasTransactions(): { name: string; tx: NormalizedTx }[] {
  const root = join(DAS, 'decoded', 'transactions');
  return readdirSync(root).flatMap((dir) =>
    readdirSync(join(root, dir))
      .filter((f) => f.endsWith('.json'))
      .map((f) => ({ name: `${dir}/${f.slice(0, -5)}`, tx: normalizeGeyserTransaction(readJson(join(root, dir, f))) })),
  );
}

interface CaseInput {
  kind: 'transaction' | 'account';
  decoded: string;
}
export interface DasCase {
  id: string;
  method: string;
  params: Record<string, unknown>;
  expected: string;
  inputs: CaseInput[][];
}

/** Expected asset fields the tests compare (a subset of the DAS Asset object). */
export interface ExpectedAsset {
  id: string;
  burnt: boolean;
  content: { json_uri: string; metadata: { name: string; symbol: string } };
  compression: {
    compressed: boolean;
    data_hash: string;
    creator_hash: string;
    asset_hash: string;
    tree: string;
    seq: number;
    leaf_id: number;
    collection_hash?: string;
    asset_data_hash?: string;
    flags?: number;
  };
  ownership: { owner: string; delegate: string | null; frozen: boolean; non_transferable?: boolean };
  grouping: { group_key: string; group_value: string }[];
  creators: { address: string; share: number; verified: boolean }[];
  mutable: boolean;
}

/** The cases whose inputs include transactions: the compressed NFT scenarios. */
export function cnftCases(): { c: DasCase; txs: NormalizedTx[]; assets: ExpectedAsset[] }[] {
  const manifest = readJson(join(DAS, 'cases.json')) as { cases: DasCase[] };
  return manifest.cases
    .filter((c) => c.inputs.flat().some((i) => i.kind === 'transaction'))
    .map((c) => {
      const txs = c.inputs
        .flat()
        .filter((i) => i.kind === 'transaction')
        .map((i) => normalizeGeyserTransaction(readJson(join(DAS, i.decoded))));
      const snap = readFileSync(join(DAS, 'snapshots', c.expected.split('/').pop()!), 'utf8');
      // The JSON follows the second `---` line (insta snapshot header).
      const result = JSON.parse(snap.slice(snap.indexOf('\n---\n', 4) + 5)) as ExpectedAsset | { items: ExpectedAsset[] };
      return { c, txs, assets: 'items' in result ? result.items : [result] };
    });
}
