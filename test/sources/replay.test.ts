/**
 * Replay of recorded files: content-based detection, directory expansion order, grouping of single
 * transactions into blocks, interleaving with account snapshots, and errors that name the file.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJsonLossless } from '../../src/sources/json.js';
import { createReplaySource, type ReplayItem } from '../../src/sources/replay.js';

const FIX = join(import.meta.dirname, '../fixtures');
const TX_DIR = join(FIX, 'photon-transactions/batch_append_nullify');
const DAS_TX = join(FIX, 'das/decoded/transactions/mint_transfer_burn');
const DAS_ACC = join(FIX, 'das/decoded/accounts/get_nft_editions');
const read = (f: string): any => parseJsonLossless(readFileSync(f, 'utf8'));

// Recorded transactions grouped by slot: a slot with two transactions, and three slots with one each.
const bySlot = new Map<number, string[]>();
for (const n of readdirSync(TX_DIR).sort()) {
  const s = read(join(TX_DIR, n)).slot;
  bySlot.set(s, [...(bySlot.get(s) ?? []), n]);
}
const pair = [...bySlot.entries()].find(([, v]) => v.length === 2)!;
const singles = [...bySlot.entries()].filter(([, v]) => v.length === 1).slice(0, 3);
const [SLOT_S, [SIG_A, SIG_B]] = pair;
const [[SLOT_T, [SIG_C]], [, [SIG_D]], [, [SIG_E]]] = singles;
const BLOCK_SLOT = 987654;
const account = readdirSync(DAS_ACC).sort()[0];
const ACCOUNT_KEY = account.replace(/\.json$/, '');

let root: string;
const p = (...parts: string[]) => join(root, ...parts);

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'solgate-replay-'));
  mkdirSync(p('mixed/a'), { recursive: true });
  mkdirSync(p('mixed/b'));
  mkdirSync(p('mixed/c'));
  // getTransaction files (no extension, as recorded); names chosen so sorted order is A, B, C.
  copyFileSync(join(TX_DIR, SIG_A), p('mixed/a/1-tx'));
  copyFileSync(join(TX_DIR, SIG_B), p('mixed/a/2-tx'));
  copyFileSync(join(TX_DIR, SIG_C), p('mixed/a/3-tx'));
  // A getBlock result built from two other recorded transactions; its slot is only in the file name.
  const entries = [SIG_D, SIG_E].map((s) => {
    const { slot: _s, blockTime: _t, ...entry } = read(join(TX_DIR, s));
    return entry;
  });
  const block = {
    blockhash: 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG',
    previousBlockhash: '4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHirAn',
    parentSlot: BLOCK_SLOT - 1,
    blockTime: 1_700_000_123,
    blockHeight: 9,
    transactions: entries,
  };
  writeFileSync(p(`mixed/b/${BLOCK_SLOT}`), JSON.stringify(block));
  copyFileSync(join(DAS_ACC, account), p('mixed/c/account.json'));
  writeFileSync(p('mixed/.hidden'), 'not json');
  // A JSON array and the same records as JSON lines: Geyser transaction, two account snapshots.
  const geyser = readdirSync(DAS_TX).sort().map((f) => read(join(DAS_TX, f)));
  const accs = readdirSync(DAS_ACC).sort().slice(0, 2).map((f) => readFileSync(join(DAS_ACC, f), 'utf8'));
  writeFileSync(p('array.json'), `[${JSON.stringify(geyser[0])}, ${accs.join(',')}]`);
  writeFileSync(p('lines.jsonl'), [JSON.stringify(geyser[0]), ...accs.map((a) => JSON.stringify(JSON.parse(a)))].join('\n'));
  writeFileSync(p('bad.json'), '{"slot": 1,');
  writeFileSync(p('unknown.json'), '{"hello": "world"}');
  writeFileSync(p('block-no-slot.json'), JSON.stringify(block));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function all(paths: string[]): Promise<ReplayItem[]> {
  const out: ReplayItem[] = [];
  for await (const item of createReplaySource(paths).items()) out.push(item);
  return out;
}

const describeItem = (i: ReplayItem) =>
  i.kind === 'block'
    ? ['block', i.block.slot, i.block.transactions.map((t) => t.signature)]
    : ['accounts', i.accounts.map((a) => a.pubkey)];

describe('createReplaySource', () => {
  it('replays a mixed directory in sorted order, grouping transactions of one slot', async () => {
    const items = await all([p('mixed')]);
    expect(items.map(describeItem)).toEqual([
      ['block', SLOT_S, [SIG_A, SIG_B]],
      ['block', SLOT_T, [SIG_C]],
      ['block', BLOCK_SLOT, [SIG_D, SIG_E]],
      ['accounts', [ACCOUNT_KEY]],
    ]);
    const [grouped, , fromFile] = items.map((i) => (i.kind === 'block' ? i.block : null));
    expect(grouped).toMatchObject({ parentSlot: null, blockhash: null, blockTime: read(join(TX_DIR, SIG_A)).blockTime });
    expect(grouped!.transactions.map((t) => t.indexInBlock)).toEqual([null, null]);
    expect(fromFile).toMatchObject({ slot: BLOCK_SLOT, parentSlot: BLOCK_SLOT - 1, blockTime: 1_700_000_123, blockHeight: 9 });
    expect(fromFile!.transactions.map((t) => [t.slot, t.indexInBlock, t.blockTime])).toEqual([
      [BLOCK_SLOT, 0, 1_700_000_123],
      [BLOCK_SLOT, 1, 1_700_000_123],
    ]);
    expect(items[3].file).toBe(p('mixed/c/account.json'));
  });

  it('keeps the command-line order and interleaves accounts between transactions', async () => {
    const items = await all([p('mixed/a/3-tx'), p('mixed/a/1-tx'), p('mixed/c'), p('mixed/a/2-tx'), p(`mixed/b/${BLOCK_SLOT}`)]);
    expect(items.map(describeItem)).toEqual([
      ['block', SLOT_T, [SIG_C]], // slots need not increase in a replay
      ['block', SLOT_S, [SIG_A]],
      ['accounts', [ACCOUNT_KEY]],
      ['block', SLOT_S, [SIG_B]], // not merged across the account snapshot
      ['block', BLOCK_SLOT, [SIG_D, SIG_E]],
    ]);
  });

  it('reads JSON arrays and JSON lines of Geyser transactions and account snapshots', async () => {
    const arrayItems = (await all([p('array.json')])).map(describeItem);
    const lineItems = (await all([p('lines.jsonl')])).map(describeItem);
    expect(arrayItems).toEqual(lineItems);
    expect(arrayItems.map((i) => i[0])).toEqual(['block', 'accounts']);
    expect((arrayItems[1][1] as string[]).length).toBe(2);
  });

  it('offers blocks() from a slot and accounts() separately', async () => {
    const src = createReplaySource([p('mixed')]);
    const slots: number[] = [];
    for await (const b of src.blocks(SLOT_S + 1)) slots.push(b.slot);
    expect(slots).toEqual([SLOT_T, BLOCK_SLOT].filter((s) => s > SLOT_S));
    const batches: string[][] = [];
    for await (const a of src.accounts()) batches.push(a.map((x) => x.pubkey));
    expect(batches).toEqual([[ACCOUNT_KEY]]);
    expect(await src.files()).toEqual([
      p('mixed/a/1-tx'),
      p('mixed/a/2-tx'),
      p('mixed/a/3-tx'),
      p(`mixed/b/${BLOCK_SLOT}`),
      p('mixed/c/account.json'),
    ]);
    expect(src.name).toBe('replay:1 path');
  });

  it('stops when the signal aborts', async () => {
    const ac = new AbortController();
    const got: ReplayItem[] = [];
    for await (const i of createReplaySource([p('mixed')]).items(ac.signal)) {
      got.push(i);
      ac.abort();
    }
    expect(got.length).toBe(1);
  });

  it('fails with an error naming the file', async () => {
    await expect(all([p('bad.json')])).rejects.toThrow(`replay: ${p('bad.json')}: invalid JSON`);
    await expect(all([p('unknown.json')])).rejects.toThrow(`replay: ${p('unknown.json')}: not a recognised record`);
    await expect(all([p('missing')])).rejects.toThrow(`replay: cannot read ${p('missing')}`);
    await expect(all([p('block-no-slot.json')])).rejects.toThrow(/block-no-slot\.json: getBlock result has no slot/);
    const broken = p('broken-tx');
    const tx = read(join(TX_DIR, SIG_A));
    tx.meta.fee = -5;
    writeFileSync(broken, JSON.stringify(tx));
    await expect(all([broken])).rejects.toThrow(`replay: ${broken}: invalid getTransaction result: meta.fee`);
  });
});
