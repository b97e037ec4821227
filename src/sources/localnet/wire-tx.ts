/** Signing a transaction with @solana/kit into its wire bytes (the chain's faucet, the demo workload and tests use it). */
import {
  appendTransactionMessageInstructions, compressTransactionMessageUsingAddressLookupTables, createTransactionMessage,
  getTransactionEncoder, pipe, setTransactionMessageFeePayerSigner, setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners, type Address, type Blockhash, type Instruction, type KeyPairSigner,
} from '@solana/kit';

/** Signs and serializes a transaction (legacy, or v0 optionally compressed with lookup tables). */
export async function buildWireTransaction(input: {
  feePayer: KeyPairSigner;
  instructions: Instruction[];
  blockhash: string;
  lastValidBlockHeight?: number;
  version?: 'legacy' | 0;
  lookupTables?: Record<Address, Address[]>;
}): Promise<Uint8Array> {
  const lifetime = { blockhash: input.blockhash as Blockhash, lastValidBlockHeight: BigInt(input.lastValidBlockHeight ?? 0) };
  let signed;
  if (input.version === 0) {
    const base = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(input.feePayer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
      (m) => appendTransactionMessageInstructions(input.instructions, m),
    );
    const message = input.lookupTables ? compressTransactionMessageUsingAddressLookupTables(base, input.lookupTables) : base;
    signed = await signTransactionMessageWithSigners(message);
  } else {
    const message = pipe(
      createTransactionMessage({ version: 'legacy' }),
      (m) => setTransactionMessageFeePayerSigner(input.feePayer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
      (m) => appendTransactionMessageInstructions(input.instructions, m),
    );
    signed = await signTransactionMessageWithSigners(message);
  }
  return new Uint8Array(getTransactionEncoder().encode(signed));
}
