/**
 * Live-mode account fetching: which accounts a block's transactions wrote for the asset programs (on recorded
 * Geyser-style transactions and on transactions executed by the localnet), and `getMultipleAccounts` with
 * `minContextSlot` against the localnet's JSON-RPC (closures, batching, waiting for the slot).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import * as t22 from '@solana-program/token-2022';
import type { Block, NormalizedTx } from '../../src/core/model.js';
import { SYSTEM_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../../src/core/programs.js';
import { parseJsonLossless } from '../../src/sources/json.js';
import { normalizeGeyserTransaction, normalizeRpcBlock } from '../../src/sources/normalize-rpc.js';
import { fetchAccountsAtSlot, selectAccountsToFetch } from '../../src/sources/account-fetch.js';
import { createRpcClient, type RpcClient as RetryingClient } from '../../src/sources/rpc-client.js';
import { getCreateLookupTableInstruction, getExtendLookupTableInstruction } from '../../src/sources/localnet/alt.js';
import type { Localnet } from '../../src/sources/localnet/index.js';
import { decodeTokenProgramAccount } from '../../src/parsers/accounts/token-program.js';
import { foldAccounts } from '../../src/ingest/fold-accounts.js';
import { fundedLocalnet, sendTx, setupSplMint, type RpcClient } from '../localnet/helpers.js';

const TM = 'metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s';
const CORE = 'CoREENxT6tW1HoK8ypY1SxRMZTcVPm7R94rH4PZNhX7d';
const TXS = join(import.meta.dirname, '../fixtures/das/decoded/transactions');

/** The recorded Geyser-style transactions of one scenario directory (one file = one record). */
function recorded(dir: string): NormalizedTx[] {
  return readdirSync(join(TXS, dir))
    .sort()
    .map((f) => normalizeGeyserTransaction(parseJsonLossless(readFileSync(join(TXS, dir, f), 'utf8'))));
}
const bySig = (dir: string, prefix: string) => recorded(dir).filter((t) => t.signature.startsWith(prefix));

describe('selectAccountsToFetch on recorded transactions', () => {
  it('Bubblegum decompression: the accounts its Token Metadata CPIs list, without payer, programs and sysvars', () => {
    const [tx] = bySig('asset_decompress', '3Ct9n9hv');
    expect(tx.header).toBeNull(); // Geyser records: writability unknown, so every listed account counts
    expect(selectAccountsToFetch([tx])).toEqual([
      { pubkey: '5AgDPkMLtW7dxK4vo4Sbhgj2ek2Xxqe6k9HMSfwz7JrE', closedOwner: TM }, // metadata
      { pubkey: 'Az9QTysJj1LW1F7zkYF21HgBj3FRpq3zpxTFdPnAJYm8', closedOwner: TM }, // mint
      { pubkey: '5S5CHHQ69Q2gdRVRV45TVnZpy6eExzq5Zw5BRQozC3Ap', closedOwner: TM }, // mint authority
      { pubkey: 'HkdmoXct4zKyAfgZgpuavKzmuvf2Z5UZ35v1UUW3Z9Jk', closedOwner: TM }, // payer of the CPI
      { pubkey: 'Efi1oabSQtJ2uNC83d6yjKW4Z94FuxoX9nYmadJFSRSe', closedOwner: TM }, // master edition
    ]);
  });

  it('the fee payer is never selected, even when a Token Metadata instruction lists it', () => {
    const [tx] = bySig('cnft_owners_table', '3UrxyfoJ');
    const keys = selectAccountsToFetch([tx]).map((r) => r.pubkey);
    expect(keys).not.toContain(tx.accountKeys[0]);
    expect(keys).toEqual(['5pQsrM3oZHnuxs7MWbvs2FYnwHq42K2L8ucnMq5mBA7T', 'STKM3PzeFc6kdJiMXyQ3pRDa3ERCEGgM9NbPPGb2Rft', '4ewWZC5gT6TGpm5LZNDs9wVonfUT2q5PP5sc9kVbwMAK']);
  });

  it('MPL Core invoked by Bubblegum v2: the collection; per block each account once', () => {
    const txs = recorded('mint_v2_to_collection_burn_v2');
    expect(txs.filter((t) => selectAccountsToFetch([t]).length > 0)).toHaveLength(2);
    expect(selectAccountsToFetch({ transactions: txs })).toEqual([
      { pubkey: '4eej2HLDBinhs3z8im3gZXAxXCaMYRWvWvKh8krYfks1', closedOwner: CORE },
      { pubkey: 'CbNY3JiXdXNE9tPNEk1aRZVEkWdj2v7kfJLNQwZZgpXk', closedOwner: CORE },
    ]);
  });

  it('a program that is only listed as an account (not invoked) selects nothing', () => {
    const [tx] = bySig('update_metadata_v2_new_name_new_uri', '2ZYWdwC2');
    expect(tx.accountKeys).toContain(CORE);
    expect(selectAccountsToFetch([tx])).toEqual([]);
    // Plain Bubblegum/compression traffic neither.
    expect(selectAccountsToFetch(recorded('mint_transfer_transfer').filter((t) => !t.accountKeys.includes(TM)))).toEqual([]);
  });
});

describe('on the localnet', () => {
  let net: Localnet;
  let rpc: RpcClient;
  let payer: KeyPairSigner;
  let other: KeyPairSigner;
  let mint: Address;
  let payerAta: Address;
  let otherAta: Address;
  const blocks = new Map<string, Block>();

  /** The block (as the poller normalises it) holding the transactions sent since the last slot. */
  async function produce(name: string): Promise<Block> {
    const slot = net.chain.produceSlot()!.slot;
    const raw = await rpc.call('getBlock', [slot, { encoding: 'base64', transactionDetails: 'full', rewards: false, maxSupportedTransactionVersion: 0 }]);
    const b = normalizeRpcBlock(raw, slot, { skipVotes: true });
    blocks.set(name, b);
    return b;
  }

  beforeAll(async () => {
    ({ net, rpc, payer } = await fundedLocalnet(20_000_000_000));
    other = await generateKeyPairSigner();
    const mintSigner = await generateKeyPairSigner();
    mint = mintSigner.address;
    const extensions = [t22.extension('MetadataPointer', { authority: payer.address, metadataAddress: mint })];
    const metadata = t22.extension('TokenMetadata', {
      updateAuthority: payer.address, mint, name: 'Fetch Me', symbol: 'FTM', uri: 'https://example.com/ftm.json', additionalMetadata: new Map(),
    });
    const rent = BigInt(await rpc.call('getMinimumBalanceForRentExemption', [t22.getMintSize([...extensions, metadata])]));
    const create = await sendTx(rpc, payer, [
      getCreateAccountInstruction({ payer, newAccount: mintSigner, lamports: rent, space: t22.getMintSize(extensions), programAddress: t22.TOKEN_2022_PROGRAM_ADDRESS }),
      ...t22.getPreInitializeInstructionsForMintExtensions(mint, extensions),
      t22.getInitializeMintInstruction({ mint, decimals: 6, mintAuthority: payer.address }),
      ...t22.getPostInitializeInstructionsForMintExtensions(mint, payer, [metadata]),
    ]);
    expect(create.reply.error).toBeUndefined();
    await produce('create');

    [payerAta] = await t22.findAssociatedTokenPda({ owner: payer.address, mint, tokenProgram: t22.TOKEN_2022_PROGRAM_ADDRESS });
    [otherAta] = await t22.findAssociatedTokenPda({ owner: other.address, mint, tokenProgram: t22.TOKEN_2022_PROGRAM_ADDRESS });
    const table = await getCreateLookupTableInstruction({ authority: payer.address, payer: payer.address, recentSlot: BigInt(await rpc.call('getSlot')) });
    const alt = await sendTx(rpc, payer, [table.instruction, getExtendLookupTableInstruction({ table: table.table, authority: payer.address, payer: payer.address, addresses: [mint] })]);
    expect(alt.reply.error).toBeUndefined();
    await produce('alt');

    // v0 with the mint loaded (writable) from the lookup table: ATA creation + mintTo.
    const minted = await sendTx(rpc, payer, [
      t22.getCreateAssociatedTokenIdempotentInstruction({ payer, ata: payerAta, owner: payer.address, mint }),
      t22.getMintToCheckedInstruction({ mint, token: payerAta, mintAuthority: payer, amount: 1_000_000n, decimals: 6 }),
    ], { version: 0, lookupTables: { [table.table]: [mint] } as Record<Address, Address[]> });
    expect(minted.reply.error).toBeUndefined();
    await produce('mintTo');

    // Transfers (Token-2022 and SPL Token) and a failed mintTo (wrong decimals) write no mint that changed.
    const transfer = await sendTx(rpc, payer, [
      t22.getCreateAssociatedTokenIdempotentInstruction({ payer, ata: otherAta, owner: other.address, mint }),
      t22.getTransferCheckedInstruction({ source: payerAta, mint, destination: otherAta, authority: payer, amount: 1_000n, decimals: 6 }),
    ]);
    expect(transfer.reply.error).toBeUndefined();
    const failed = await sendTx(rpc, payer, [t22.getMintToCheckedInstruction({ mint, token: payerAta, mintAuthority: payer, amount: 1n, decimals: 9 })], { skipPreflight: true });
    expect(failed.reply.error).toBeUndefined();
    await setupSplMint(rpc, payer, 2, [payer.address, other.address], 100n);
    await produce('transfers');
  });
  afterAll(async () => net?.close());

  it('the Token-2022 mint a creation writes; not the payer', () => {
    const b = blocks.get('create')!;
    expect(b.transactions).toHaveLength(1);
    expect(selectAccountsToFetch(b)).toEqual([{ pubkey: mint, closedOwner: SYSTEM_PROGRAM }]);
    expect(selectAccountsToFetch(blocks.get('alt')!)).toEqual([]);
  });

  it('a mint loaded writable from a lookup table, and the Token-2022 account the token balances describe', () => {
    const b = blocks.get('mintTo')!;
    const [tx] = b.transactions;
    expect(tx.version).toBe(0);
    expect(tx.accountKeys.indexOf(mint)).toBeGreaterThanOrEqual(tx.staticKeyCount); // loaded, not static
    expect(tx.meta!.postTokenBalances!.map((x) => tx.accountKeys[x.accountIndex])).toEqual([payerAta]);
    // Token-2022 account state (extensions such as withheld fees) is not in the balances, so it is fetched too.
    expect(selectAccountsToFetch(b)).toEqual([{ pubkey: mint, closedOwner: SYSTEM_PROGRAM }, { pubkey: payerAta, closedOwner: SYSTEM_PROGRAM }]);
  });

  it('transfers select the Token-2022 accounts they wrote; never SPL Token accounts or a failed transaction\'s', () => {
    const b = blocks.get('transfers')!;
    expect(b.transactions.length).toBeGreaterThanOrEqual(3);
    expect(b.transactions.some((t) => t.meta!.err !== null && t.accountKeys.includes(mint))).toBe(true);
    const ok = b.transactions.filter((t) => t.meta!.err === null);
    const accountsOf = (program: string) => new Set(ok.flatMap((t) => t.meta!.postTokenBalances!.filter((x) => x.programId === program).map((x) => t.accountKeys[x.accountIndex])));
    expect([...accountsOf(TOKEN_2022_PROGRAM)].sort()).toEqual([payerAta, otherAta].sort());
    expect(accountsOf(TOKEN_PROGRAM).size).toBeGreaterThan(0);
    expect(selectAccountsToFetch(b).map((r) => r.pubkey).sort()).toEqual([payerAta, otherAta].sort());
  });

  it('fetches the selected accounts at the block slot or later; missing accounts come back closed', async () => {
    const client = createRpcClient({ url: net.url, backoffBaseMs: 5 });
    try {
      const b = blocks.get('create')!;
      const gone = (await generateKeyPairSigner()).address;
      const never = (await generateKeyPairSigner()).address;
      const out = await fetchAccountsAtSlot(client, b.slot, [
        ...selectAccountsToFetch(b),
        { pubkey: gone, closedOwner: TM },
        { pubkey: never, closedOwner: SYSTEM_PROGRAM },
      ], { commitment: 'confirmed' });
      expect(out.map((a) => a.pubkey)).toEqual([mint, gone, never]);
      for (const a of out) {
        expect(a.slot).toBe(net.chain.slot);
        expect(a.slot).toBeGreaterThanOrEqual(b.slot);
        expect(a.writeVersion).toBe(0n);
      }
      expect(out[0].owner).toBe(TOKEN_2022_PROGRAM);
      const decoded = decodeTokenProgramAccount(out[0]);
      expect(decoded?.kind).toBe('mint');
      expect(decoded?.extensions.tokenMetadata).toMatchObject({ name: 'Fetch Me', symbol: 'FTM', uri: 'https://example.com/ftm.json' });
      expect(out[1]).toMatchObject({ owner: TM, lamports: 0n, executable: false });
      expect(out[1].data.length).toBe(0);
      expect(out[2]).toMatchObject({ owner: SYSTEM_PROGRAM, lamports: 0n });
      // The closure reaches the asset parsers as a Token Metadata closure; the mint as a mint with its extensions.
      const folded = foldAccounts(out);
      expect(folded.assetAccounts.map((r) => [r.address, r.kind])).toEqual([[gone, 'tm.closed']]);
      expect(folded.mints.map((m) => m.address)).toEqual([mint]);
      expect(folded.tokenExtensions.find((e) => e.extension === 'tokenMetadata')?.target).toBe(mint);
    } finally {
      await client.close();
    }
  });

  it('waits for minContextSlot, and splits requests into batches of at most 100', async () => {
    const inner = createRpcClient({ url: net.url, backoffBaseMs: 5, backoffMaxMs: 20 });
    const calls: { method: string; params: unknown[] }[] = [];
    const client: RetryingClient = {
      url: inner.url,
      call: (method, params, signal) => (calls.push({ method, params }), inner.call(method, params, signal)),
      close: () => inner.close(),
    };
    try {
      const future = net.chain.slot + 1;
      const pending = fetchAccountsAtSlot(client, future, [{ pubkey: mint, closedOwner: SYSTEM_PROGRAM }], { commitment: 'confirmed' });
      await new Promise((r) => setTimeout(r, 100));
      net.chain.produceSlot();
      const [a] = await pending;
      expect(a.slot).toBe(future);
      expect(a.owner).toBe(TOKEN_2022_PROGRAM);
      expect(calls[0].params[1]).toEqual({ encoding: 'base64', commitment: 'confirmed', minContextSlot: future });

      calls.length = 0;
      const keys = await Promise.all(Array.from({ length: 250 }, async () => (await generateKeyPairSigner()).address));
      const out = await fetchAccountsAtSlot(client, future, [mint, ...keys].map((pubkey) => ({ pubkey, closedOwner: SYSTEM_PROGRAM })), { commitment: 'confirmed' });
      expect(calls.map((c) => (c.params[0] as string[]).length)).toEqual([100, 100, 51]);
      expect(out.map((x) => x.pubkey)).toEqual([mint, ...keys]);
      expect(out.slice(1).every((x) => x.lamports === 0n && x.data.length === 0)).toBe(true);
    } finally {
      await client.close();
    }
  });
});
