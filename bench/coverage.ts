/**
 * `npm run bench -- coverage`: reading the past from the cluster (docs/coverage.md) against the built-in localnet.
 *  - hydration of a wallet holding `--accounts` token accounts (over `--mints` mints): time from its first request
 *    to a complete answer, and the RPC calls made;
 *  - backfill of a wallet with `--txs` transactions: time to a complete history, and the RPC calls made.
 * Each figure is a ratio to the same RPC calls made alone in the same run (the reads without any writing), so the
 * ratio is what indexing adds to the cluster's own cost.
 *
 *   npm run bench -- coverage [--accounts 1000] [--mints 100] [--txs 10000]
 */
import { generateKeyPairSigner, type Address, type Instruction, type KeyPairSigner } from '@solana/kit';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import * as spl from '@solana-program/token';
import pino from 'pino';
import { createLocalnet, type Localnet } from '../src/sources/localnet/index.js';
import { buildWireTransaction } from '../src/sources/localnet/wire-tx.js';
import { createRpcClient, type RpcClient } from '../src/sources/rpc-client.js';
import { fetchWalletState } from '../src/sources/wallet-state.js';
import { fetchBlockSignatures, fetchSignaturePage, fetchTransactions } from '../src/sources/address-history.js';
import { createIngester } from '../src/ingest/pipeline.js';
import { createCoverageService } from '../src/ingest/hydrate.js';
import { createBackfiller } from '../src/ingest/backfill.js';
import { recordIndexOrigin } from '../src/store/coverage.js';
import { mapLimit } from '../src/core/map-limit.js';
import { createBenchDb } from './lib/db.js';
import { numberFlag, parseFlags } from './lib/args.js';
import { table, writeResult } from './lib/report.js';

export const description = 'coverage: hydrate a wallet with 1,000 token accounts, backfill one with 10,000 transactions (localnet), against the RPC calls alone';

const logger = pino({ level: 'silent' });

/** An RPC client that counts calls per method. */
function counting(inner: RpcClient): RpcClient & { calls: Map<string, number>; total(): number } {
  const calls = new Map<string, number>();
  return {
    url: inner.url,
    calls,
    total: () => [...calls.values()].reduce((a, b) => a + b, 0),
    call(method, params, signal) {
      calls.set(method, (calls.get(method) ?? 0) + 1);
      return inner.call(method, params, signal);
    },
    close: () => inner.close(),
  };
}

/** Sends in-process (the instruction builders carry their signers); a transaction that does not commit cleanly throws. */
async function send(net: Localnet, payer: KeyPairSigner, instructions: Instruction[]): Promise<void> {
  const { blockhash, lastValidBlockHeight } = net.chain.latestBlockhash();
  const wire = await buildWireTransaction({ feePayer: payer, instructions, blockhash, lastValidBlockHeight });
  const out = net.chain.sendTransaction(wire, { skipPreflight: false });
  if (out.kind !== 'committed' || out.tx.meta.err !== null) throw new Error(`bench setup transaction failed: ${out.kind}`);
}

/** A wallet holding `accounts` token accounts over `mints` SPL Token mints (non-associated accounts after the first). */
async function walletWithAccounts(net: Localnet, payer: KeyPairSigner, accounts: number, mints: number): Promise<Address> {
  const owner = await generateKeyPairSigner();
  const mintRent = BigInt(net.chain.minimumBalanceForRentExemption(82));
  const accountRent = BigInt(net.chain.minimumBalanceForRentExemption(165));
  const mintKeys: KeyPairSigner[] = [];
  for (let i = 0; i < mints; i += 4) {
    const batch = await Promise.all(Array.from({ length: Math.min(4, mints - i) }, () => generateKeyPairSigner()));
    mintKeys.push(...batch);
    await send(net, payer, batch.flatMap((m) => [
      getCreateAccountInstruction({ payer, newAccount: m, lamports: mintRent, space: 82, programAddress: spl.TOKEN_PROGRAM_ADDRESS }),
      spl.getInitializeMint2Instruction({ mint: m.address, decimals: 6, mintAuthority: payer.address }),
    ]));
    net.chain.produceSlot();
  }
  for (let i = 0; i < accounts; i += 6) {
    const batch = await Promise.all(Array.from({ length: Math.min(6, accounts - i) }, () => generateKeyPairSigner()));
    await send(net, payer, batch.flatMap((a, k) => {
      const mint = mintKeys[(i + k) % mintKeys.length].address;
      return [
        getCreateAccountInstruction({ payer, newAccount: a, lamports: accountRent, space: 165, programAddress: spl.TOKEN_PROGRAM_ADDRESS }),
        spl.getInitializeAccount3Instruction({ account: a.address, mint, owner: owner.address }),
        spl.getMintToInstruction({ mint, token: a.address, mintAuthority: payer, amount: 1_000n + BigInt(i + k) }),
      ];
    }));
    if (i % 60 === 0) net.chain.produceSlot();
  }
  net.chain.produceSlot();
  return owner.address;
}

/** A wallet that sent `txs` SOL transfers (a few per slot). */
async function walletWithHistory(net: Localnet, payer: KeyPairSigner, txs: number): Promise<Address> {
  const w = await generateKeyPairSigner();
  const to = await generateKeyPairSigner();
  // The recipient is made rent-exempt first, so every transfer can be small (and distinct: amount = 1 + i lamports).
  await send(net, payer, [
    getTransferSolInstruction({ source: payer, destination: w.address, amount: BigInt(txs) * 10_000n + 1_000_000_000n }),
    getTransferSolInstruction({ source: payer, destination: to.address, amount: 1_000_000_000n }),
  ]);
  net.chain.produceSlot();
  for (let i = 0; i < txs; i++) {
    await send(net, w, [getTransferSolInstruction({ source: w, destination: to.address, amount: 1n + BigInt(i) })]);
    if (i % 8 === 7) net.chain.produceSlot();
  }
  net.chain.produceSlot();
  return w.address;
}

const since = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

export async function run(argv: string[]): Promise<unknown> {
  const flags = parseFlags(argv);
  const accounts = numberFlag(flags, 'accounts', 1000);
  const mints = numberFlag(flags, 'mints', 100);
  const txs = numberFlag(flags, 'txs', 10_000);

  const net = await createLocalnet({ slotMs: 0 });
  const plain = createRpcClient({ url: net.url });
  const bench = await createBenchDb();
  try {
    const payer = await generateKeyPairSigner();
    await net.chain.requestAirdrop(payer.address, 10_000_000_000_000n);
    net.chain.produceSlot();
    let t0 = process.hrtime.bigint();
    const holder = await walletWithAccounts(net, payer, accounts, mints);
    const sender = await walletWithHistory(net, payer, txs);
    const setupMs = since(t0);

    // The RPC calls alone (same run): the state reads, and the history reads (pages, transactions, block positions).
    t0 = process.hrtime.bigint();
    await fetchWalletState(plain, holder, { commitment: 'confirmed' });
    const stateReadMs = since(t0);
    t0 = process.hrtime.bigint();
    let before: string | null = null;
    const sigs: { signature: string; slot: number }[] = [];
    for (;;) {
      const page = await fetchSignaturePage(plain, sender, before, { commitment: 'confirmed' });
      sigs.push(...page);
      if (page.length < 1000) break;
      before = page[page.length - 1].signature;
    }
    await fetchTransactions(plain, sigs.map((s) => s.signature), { commitment: 'confirmed', concurrency: 8 });
    await mapLimit([...new Set(sigs.map((s) => s.slot))], 8, (s) => fetchBlockSignatures(plain, s, { commitment: 'confirmed' }));
    const historyReadMs = since(t0);

    // The same through solgate: an index that began after all of it.
    const client = counting(createRpcClient({ url: net.url }));
    const ingester = createIngester(bench.db, logger);
    const backfill = createBackfiller({ db: bench.db, ingester, client, commitment: 'confirmed', logger, idleMs: 20 });
    const coverage = createCoverageService({ db: bench.db, ingester, client, commitment: 'confirmed', logger, backfill, historyWaitMs: 600_000 });
    await recordIndexOrigin(bench.db, net.chain.slot + 1);
    backfill.start();

    t0 = process.hrtime.bigint();
    const state = await coverage.ensureCovered(holder, 'state');
    const hydrateMs = since(t0);
    const hydrateCalls = client.total();
    const { rows: held } = await bench.db.query<{ n: number }>('SELECT count(*)::int AS n FROM token_accounts WHERE owner = $1', [holder]);

    client.calls.clear();
    t0 = process.hrtime.bigint();
    const history = await coverage.ensureCovered(sender, 'history');
    const backfillMs = since(t0);
    const backfillCalls = Object.fromEntries(client.calls);
    const { rows: written } = await bench.db.query<{ n: number }>('SELECT count(*)::int AS n FROM address_transactions WHERE address = $1', [sender]);
    await backfill.stop();
    await client.close();

    const rows = [
      ['hydrate a wallet', `${held[0].n} token accounts`, `${hydrateMs.toFixed(0)} ms`, hydrateCalls, `${stateReadMs.toFixed(0)} ms`, `${(hydrateMs / stateReadMs).toFixed(2)}×`, state.complete ? 'complete' : 'partial'],
      ['backfill a wallet', `${written[0].n} transactions`, `${backfillMs.toFixed(0)} ms`, Object.values(backfillCalls).reduce((a, b) => a + b, 0), `${historyReadMs.toFixed(0)} ms`, `${(backfillMs / historyReadMs).toFixed(2)}×`, history.complete ? 'complete' : 'partial'],
    ];
    console.log(`coverage (${bench.description}; localnet set-up ${(setupMs / 1000).toFixed(1)} s):`);
    console.log(table(['case', 'size', 'to a complete answer', 'RPC calls', 'the RPC calls alone', 'ratio', 'answer'], rows));
    console.log(`backfill RPC calls by method: ${JSON.stringify(backfillCalls)}`);
    const file = writeResult('coverage', { database: bench.description, accounts: held[0].n, hydrateMs, hydrateCalls, stateReadMs, transactions: written[0].n, backfillMs, backfillCalls, historyReadMs });
    console.log(`written to ${file}`);
    return { hydrateMs, backfillMs };
  } finally {
    await plain.close();
    await bench.drop();
    await net.close();
  }
}
