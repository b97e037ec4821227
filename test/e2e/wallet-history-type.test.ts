/**
 * End to end: GET /v1/wallet/{wallet}/history?type=… over transactions executed on the built-in localnet and
 * ingested by the RPC poller, the enhanced type stored at ingest. Wallet A sends SOL (TRANSFER), creates a mint
 * and mints (TOKEN_MINT), sends tokens (TRANSFER), burns (BURN), and fails once (UNKNOWN); the expectations come
 * from this log of what was sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSigner, type Address, type Instruction, type KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { getBurnCheckedInstruction, getMintToCheckedInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import { createLocalnet, type Localnet } from '../../src/sources/localnet/index.js';
import { createTestApp, getOk, type TestApp } from '../helpers/app.js';
import { ingestUntil, localnetSender, type LocalnetSender } from '../localnet/helpers.js';

const SOL = 1_000_000_000n;
const DECIMALS = 6;

type Kind = 'TRANSFER' | 'TOKEN_MINT' | 'BURN' | 'UNKNOWN';
interface Sent {
  signature: string;
  type: Kind;
  involves: string[];
}

let net: Localnet;
let sender: LocalnetSender;
let ta: TestApp;
let A: KeyPairSigner, B: KeyPairSigner, mint: KeyPairSigner;
let ataA: Address, ataB: Address;
const sent: Sent[] = [];

async function send(payer: KeyPairSigner, ixs: Instruction[], type: Kind, involves: string[]): Promise<void> {
  const { signature } = await sender.send(payer, ixs);
  sent.push({ signature, type, involves });
}

const get = (path: string): Promise<{ data: { signature: string }[]; pagination: { hasMore: boolean; nextCursor: string | null } }> => getOk(ta, path);

const sigs = (body: { data: { signature: string }[] }) => body.data.map((d) => d.signature);
/** What A's history filtered by `type` must be, newest first. */
const expected = (type: Kind, wallet = A.address) => sent.filter((s) => s.type === type && s.involves.includes(wallet)).map((s) => s.signature).reverse();

beforeAll(async () => {
  net = await createLocalnet({ port: 0, slotMs: 0 });
  sender = localnetSender(net);
  ta = await createTestApp();
  [A, B, mint] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner(), generateKeyPairSigner()]);
  // The airdrop is a System transfer from the faucet: a TRANSFER too.
  const air = await sender.airdrop(A.address, 20n * SOL);
  sent.push({ signature: air.signature, type: 'TRANSFER', involves: [A.address] });

  for (const amount of [SOL, 2n * SOL, 12_345n]) await send(A, [getTransferSolInstruction({ source: A, destination: B.address, amount })], 'TRANSFER', [A.address, B.address]);

  const setup = await sender.mintSetup(A, mint, DECIMALS, [A.address, B.address], 1_000_000_000n);
  [ataA, ataB] = setup.atas;
  await send(A, setup.instructions, 'TOKEN_MINT', [A.address, B.address]);

  const tokenTransfer = (amount: bigint) =>
    send(A, [getTransferCheckedInstruction({ source: ataA, mint: mint.address, destination: ataB, authority: A, amount, decimals: DECIMALS })], 'TRANSFER', [A.address, B.address]);
  const burn = (amount: bigint) => send(A, [getBurnCheckedInstruction({ account: ataA, mint: mint.address, authority: A, amount, decimals: DECIMALS })], 'BURN', [A.address]);
  await tokenTransfer(1_500_000n);
  await burn(100_000n);
  await tokenTransfer(42n);
  await send(A, [getMintToCheckedInstruction({ mint: mint.address, token: ataA, mintAuthority: A, amount: 5_000_000n, decimals: DECIMALS })], 'TOKEN_MINT', [A.address]);
  await burn(7n);
  await send(A, [getTransferSolInstruction({ source: A, destination: B.address, amount: 3n })], 'TRANSFER', [A.address, B.address]);
  // More tokens than A holds: fails on chain; a failed transaction is UNKNOWN.
  await send(A, [getTransferCheckedInstruction({ source: ataA, mint: mint.address, destination: ataB, authority: A, amount: 10n ** 15n, decimals: DECIMALS })], 'UNKNOWN', [A.address]);
  const last = net.chain.produceSlot()!.slot;

  await ingestUntil(ta.t.db, net.url, last);
}, 120_000);

afterAll(async () => {
  await net?.close();
  await ta?.close();
});

describe('Wallet history filtered by enhanced type', () => {
  it('the ingested type of every transaction is stored', async () => {
    const { rows } = await ta.t.db.query<{ signature: string; enhanced_type: string | null }>(
      'SELECT signature, enhanced_type FROM transactions WHERE signature = ANY($1::text[])',
      [sent.map((s) => s.signature)],
    );
    const got = new Map(rows.map((r) => [r.signature, r.enhanced_type]));
    expect(sent.map((s) => got.get(s.signature))).toEqual(sent.map((s) => s.type));
  });

  it('?type=TRANSFER returns only the SOL and token transfers, newest first; TOKEN_MINT and BURN likewise', async () => {
    for (const type of ['TRANSFER', 'TOKEN_MINT', 'BURN'] as const) {
      const body = await get(`/v1/wallet/${A.address}/history?type=${type}`);
      expect(sigs(body), type).toEqual(expected(type));
      expect(body.pagination).toEqual({ hasMore: false, nextCursor: null });
    }
    expect(expected('TRANSFER')).toHaveLength(7);
    // The unfiltered history still has everything (the failed transaction included).
    const all = await get(`/v1/wallet/${A.address}/history`);
    expect(sigs(all)).toEqual(sent.filter((s) => s.involves.includes(A.address)).map((s) => s.signature).reverse());
  });

  it('records are the same as without the filter', async () => {
    const all = await get(`/v1/wallet/${A.address}/history`);
    const bySig = new Map(all.data.map((d) => [d.signature, d]));
    const burns = await get(`/v1/wallet/${A.address}/history?type=BURN`);
    for (const d of burns.data) expect(d).toEqual(bySig.get(d.signature));
  });

  it('pagination within the filter: before pages back with no gaps or duplicates, after pages forward', async () => {
    const want = expected('TRANSFER');
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await get(`/v1/wallet/${A.address}/history?type=TRANSFER&limit=2${cursor ? `&before=${cursor}` : ''}`);
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...sigs(page));
      cursor = page.pagination.nextCursor;
      expect(page.pagination.hasMore).toBe(cursor !== null);
      pages++;
    } while (cursor);
    expect(seen).toEqual(want);
    expect(pages).toBe(4);
    // after: oldest first, strictly newer than the cursor
    const fwd = await get(`/v1/wallet/${A.address}/history?type=TRANSFER&after=${want[want.length - 1]}&limit=3`);
    expect(sigs(fwd)).toEqual(want.slice(0, -1).reverse().slice(0, 3));
    expect(fwd.pagination.hasMore).toBe(true);
    // A cursor may be a transaction of another type: the filter applies from its position.
    const mintSig = expected('TOKEN_MINT').at(-1)!;
    const before = await get(`/v1/wallet/${A.address}/history?type=TRANSFER&before=${mintSig}`);
    const all = sent.filter((s) => s.involves.includes(A.address)).map((s) => s.signature);
    expect(sigs(before)).toEqual(all.slice(0, all.indexOf(mintSig)).filter((s) => want.includes(s)).reverse());
  });

  it('a type with no matches returns an empty list', async () => {
    for (const type of ['SWAP', 'NFT_SALE', 'COMPRESSED_NFT_MINT', 'CREATE_AUCTION_MANAGER']) {
      const body = await get(`/v1/wallet/${A.address}/history?type=${type}`);
      expect(body).toEqual({ data: [], pagination: { hasMore: false, nextCursor: null } });
    }
    // B was never involved in a burn.
    expect((await get(`/v1/wallet/${B.address}/history?type=BURN`)).data).toEqual([]);
  });

  it('the filter combines with tokenAccounts: B’s token transfers only count through its token account', async () => {
    const tokenTransfers = sent.filter((s) => s.type === 'TRANSFER').slice(4, 6).map((s) => s.signature);
    const none = await get(`/v1/wallet/${B.address}/history?type=TRANSFER&tokenAccounts=none`);
    expect(sigs(none).some((s) => tokenTransfers.includes(s))).toBe(false);
    const changed = await get(`/v1/wallet/${B.address}/history?type=TRANSFER`);
    expect(sigs(changed)).toEqual(expected('TRANSFER', B.address));
    expect(sigs(changed)).toEqual(expect.arrayContaining(tokenTransfers));
  });

  it('transactions without a stored type (indexed before migration 015) match no filter', async () => {
    const first = expected('BURN').at(-1)!;
    await ta.t.db.query('UPDATE transactions SET enhanced_type = NULL WHERE signature = $1', [first]);
    // Such a transaction has no typed link entries either (address_typed, migration 046).
    await ta.t.db.query(
      'DELETE FROM address_typed a USING transactions t WHERE t.signature = $1 AND a.slot = t.slot AND a.tx_index = t.tx_index',
      [first],
    );
    expect(sigs(await get(`/v1/wallet/${A.address}/history?type=BURN`))).toEqual(expected('BURN').slice(0, -1));
    expect(sigs(await get(`/v1/wallet/${A.address}/history`))).toContain(first);
  });

  it('unknown type values are 400 naming the parameter', async () => {
    for (const t of ['NOPE', 'UNKNOWN', 'transfer']) {
      const r = await ta.app.inject({ method: 'GET', url: `/v1/wallet/${A.address}/history?type=${t}`, headers: { 'x-api-key': ta.key } });
      expect(r.statusCode).toBe(400);
      expect(r.json()).toMatchObject({ code: 400, error: expect.stringMatching(/type/) });
    }
  });
});
