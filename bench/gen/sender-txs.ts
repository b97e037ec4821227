/**
 * The Sender benchmark's workload (bench/sender.ts): distinct valid tipped transactions for the built-in localnet,
 * each a legacy transaction `SetComputeUnitPrice` + a System transfer of ≥ 200,000 lamports to one of the mainnet
 * tip accounts (the gateway's dual-routing minimum), paid by one funded payer. Every transaction tips a different
 * amount (200,000 + its sequence number), so no two share a signature even under one blockhash. Transactions are
 * signed in chunks, each under a blockhash fetched just before (the localnet's blockhashes stay valid 150 slots).
 */
import {
  appendTransactionMessageInstructions, createTransactionMessage, generateKeyPairSigner, getBase64EncodedWireTransaction,
  getSignatureFromTransaction, pipe, setTransactionMessageFeePayerSigner, setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners, type Address, type Blockhash, type KeyPairSigner,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { DEFAULT_TIP_ACCOUNTS } from '../../src/sender/validate.js';

const SOL = 1_000_000_000n;
/** The gateway's default minimum tip with dual routing (SOLGATE_SENDER_MIN_TIP_LAMPORTS). */
export const MIN_TIP_LAMPORTS = 200_000n;

/** One signed transaction: its wire form (base64) and its first signature (base58). */
export interface SignedTx {
  base64: string;
  signature: string;
}

/** A minimal JSON-RPC client for set-up calls (not on the timed path). */
export function setupRpc(url: string) {
  let id = 0;
  return async function call<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }) });
    const body = (await res.json()) as { result?: T; error?: { code: number; message: string } };
    if (body.error) throw new Error(`sender bench: ${method}: ${body.error.code} ${body.error.message}`);
    return body.result as T;
  };
}
export type SetupRpc = ReturnType<typeof setupRpc>;

/** Waits until every signature has a confirmed (or finalized) status without error; throws after `timeoutMs`. */
export async function waitConfirmed(rpc: SetupRpc, signatures: string[], timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { value } = await rpc<{ value: ({ err: unknown; confirmationStatus?: string } | null)[] }>('getSignatureStatuses', [signatures]);
    const bad = value.find((s) => s?.err);
    if (bad) throw new Error(`sender bench: a set-up transaction failed: ${JSON.stringify(bad.err)}`);
    if (value.every((s) => s && (s.confirmationStatus === 'confirmed' || s.confirmationStatus === 'finalized'))) return;
    if (Date.now() > deadline) throw new Error('sender bench: set-up transactions not confirmed in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Funds a fresh payer (`payerSol`) and the tip accounts (1 SOL each: a tip below the rent-exempt minimum to a missing
 * account would fail on chain) from the localnet's faucet, and waits until the airdrops are confirmed.
 */
export async function fundPayerAndTips(rpc: SetupRpc, payerSol = 100n): Promise<KeyPairSigner> {
  const payer = await generateKeyPairSigner();
  const sigs = [await rpc<string>('requestAirdrop', [payer.address, Number(payerSol * SOL)])];
  for (const t of DEFAULT_TIP_ACCOUNTS) sigs.push(await rpc<string>('requestAirdrop', [t, Number(SOL)]));
  await waitConfirmed(rpc, sigs);
  return payer;
}

/** Signs distinct tipped transactions in chunks under fresh blockhashes. */
export class TippedTxFactory {
  private seq = 0;
  /** Time spent fetching blockhashes and signing (outside the timed requests). */
  signMs = 0;
  constructor(private readonly rpc: SetupRpc, private readonly payer: KeyPairSigner, private readonly microLamports = 1_000n) {}

  /** `n` transactions signed under the current latest blockhash. */
  async chunk(n: number): Promise<SignedTx[]> {
    const t = performance.now();
    const { value } = await this.rpc<{ value: { blockhash: string; lastValidBlockHeight: number } }>('getLatestBlockhash', [{ commitment: 'processed' }]);
    const lifetime = { blockhash: value.blockhash as Blockhash, lastValidBlockHeight: BigInt(value.lastValidBlockHeight) };
    const out: SignedTx[] = [];
    for (let i = 0; i < n; i++) {
      const seq = this.seq++;
      const msg = pipe(
        createTransactionMessage({ version: 'legacy' }),
        (m) => setTransactionMessageFeePayerSigner(this.payer, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
        (m) => appendTransactionMessageInstructions([
          getSetComputeUnitPriceInstruction({ microLamports: this.microLamports }),
          getTransferSolInstruction({ source: this.payer, destination: DEFAULT_TIP_ACCOUNTS[seq % DEFAULT_TIP_ACCOUNTS.length] as Address, amount: MIN_TIP_LAMPORTS + BigInt(seq) }),
        ], m),
      );
      const signed = await signTransactionMessageWithSigners(msg);
      out.push({ base64: getBase64EncodedWireTransaction(signed), signature: getSignatureFromTransaction(signed) });
    }
    this.signMs += performance.now() - t;
    return out;
  }
}
