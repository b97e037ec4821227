/**
 * ZK Compression through the ingest pipeline: the four indexing variants leave identical ZK tables (row-for-row
 * digests), a tree the index does not know stops ingestion with an error naming it (nothing written), and unknown
 * trees are discovered from the chain's tree and queue accounts (Light's genesis accounts stand in for the cluster).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AccountUpdate } from '../../src/core/model.js';
import { createLightTreeRegistry, UnknownLightTreeError } from '../../src/ingest/light-trees.js';
import { createIngester } from '../../src/ingest/pipeline.js';
import { getCheckpoint } from '../../src/store/chain.js';
import { listTrees } from '../../src/store/zk/trees.js';
import { createTestDb, tableDigests, ZK_TABLES } from '../helpers/db.js';
import { inputFile, loadPhotonCases } from '../zk/harness.js';
import { blocksOf, replayInputs, VARIANTS } from '../zk/replay.js';

const pkg = dirname(createRequire(import.meta.url).resolve('@lightprotocol/zk-compression-cli/package.json'));
/** Light's genesis accounts as the cluster would return them. */
const genesis: AccountUpdate[] = readdirSync(join(pkg, 'accounts'))
  .filter((f) => f.endsWith('.json'))
  .map((f) => JSON.parse(readFileSync(join(pkg, 'accounts', f), 'utf8')) as { pubkey: string; account: { owner: string; lamports: number; data: [string, string] } })
  .map((d) => ({ pubkey: d.pubkey, owner: d.account.owner, lamports: BigInt(d.account.lamports), data: new Uint8Array(Buffer.from(d.account.data[0], 'base64')), executable: false, slot: 1, writeVersion: 0n }));
const fetchGenesis = async (keys: string[]) => genesis.filter((a) => keys.includes(a.pubkey));

const assertion = (id: string) => loadPhotonCases().assertionCases.find((c) => c.id === id)!.inputs.map((i) => ({ file: inputFile(i)!, kind: i.kind }));

describe('ZK ingest', () => {
  it('batched_tree_transactions under the four indexing variants: identical ZK tables', async () => {
    const inputs = assertion('batched_tree_transactions');
    const digests = [];
    for (const v of VARIANTS) {
      const t = await createTestDb();
      try {
        const ing = await replayInputs(t.db, inputs, v);
        expect(ing.zk.stats.treeProblems, v).toBe(0);
        digests.push(await tableDigests(t.db, ZK_TABLES));
      } finally {
        await t.drop();
      }
    }
    expect(digests[0].zk_state_nodes.rows).toBeGreaterThan(100);
    for (const d of digests.slice(1)) expect(d).toEqual(digests[0]);
  });

  it('a transaction naming an unknown tree stops ingestion with an error naming it; nothing is written', async () => {
    const t = await createTestDb();
    try {
      const [file] = assertion('four_cpi_events');
      const ingester = createIngester(t.db);
      const err = await ingester.ingestBlocks(await blocksOf(file.file, 'transaction')).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnknownLightTreeError);
      expect((err as Error).message).toContain('6L7SzhYB3anwEQ9cphpJ1U7Scwj57bx2xueReg7R9cKU');
      expect(await getCheckpoint(t.db)).toBeNull();
      const { rows } = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM zk_accounts');
      expect(rows[0].n).toBe(0);
    } finally {
      await t.drop();
    }
  });

  it('unknown trees are discovered from the chain: by the tree account (V1) and through its queue (V2 output queue)', async () => {
    const t = await createTestDb();
    try {
      const reg = createLightTreeRegistry(t.db, fetchGenesis);
      await reg.load();
      await reg.resolve(['smt1NamzXdq4AMqS2fS2F1i5KTYPZRhoHgWx38d8WsT', 'oq1na8gojfdUhsfCpyjNt6h4JaDWtHf1yQj4koBWfto', 'aq1S9z4reTSQAdgWHGD2zDaS39sjGrAxbR31vxJ2F4F']);
      const stored = Object.fromEntries((await listTrees(t.db)).map((r) => [r.tree, [r.queue, r.treeType, r.height, r.source]]));
      expect(stored).toEqual({
        smt1NamzXdq4AMqS2fS2F1i5KTYPZRhoHgWx38d8WsT: ['nfq1NvQDJ2GEgnS8zt9prAe8rjjpAW1zFkrvZoBR148', 1, 26, 'chain'],
        bmt1LryLZUMmF7ZtqESaw7wifBXLfXHQYoE4GAmrahU: ['oq1na8gojfdUhsfCpyjNt6h4JaDWtHf1yQj4koBWfto', 3, 32, 'chain'],
        amt1Ayt45jfbdw5YSo7iz6WZxUmnZsQTYXy82hVwyC2: ['aq1S9z4reTSQAdgWHGD2zDaS39sjGrAxbR31vxJ2F4F', 2, 26, 'chain'],
      });
      expect(reg.lookup('oq1na8gojfdUhsfCpyjNt6h4JaDWtHf1yQj4koBWfto')?.tree).toBe('bmt1LryLZUMmF7ZtqESaw7wifBXLfXHQYoE4GAmrahU');
      await expect(reg.resolve(['11111111111111111111111111111112'])).rejects.toBeInstanceOf(UnknownLightTreeError);
    } finally {
      await t.drop();
    }
  });

  it('recorded V1 transactions in a tree found on chain are indexed with it', async () => {
    const t = await createTestDb();
    try {
      const inputs = loadPhotonCases().snapshotCases.find((c) => c.id === 'lamport_transfers/payer')!.inputs.map((i) => inputFile(i)!);
      const ingester = createIngester(t.db, undefined, { fetchAccounts: fetchGenesis });
      for (const f of inputs) await ingester.ingestBlocks(await blocksOf(f, 'transaction'));
      expect(ingester.zk.stats.treeProblems).toBe(0);
      expect((await listTrees(t.db)).map((r) => r.tree)).toContain('smt1NamzXdq4AMqS2fS2F1i5KTYPZRhoHgWx38d8WsT');
      const { rows } = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM zk_accounts WHERE NOT spent');
      expect(rows[0].n).toBeGreaterThan(0);
    } finally {
      await t.drop();
    }
  });
});
