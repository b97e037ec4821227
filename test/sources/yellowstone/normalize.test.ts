/**
 * The Yellowstone block normaliser against the JSON-RPC one on real mainnet blocks: each recorded `getBlock`
 * result is turned into the plugin's block update (test/helpers/geyser/block.ts, checked here against the
 * Yellowstone client's own Rust encoder, which must give back the recorded JSON) and both normalisers must
 * produce the same `Block`. Transaction errors: the bincode encoding used by the stand-in against the client's
 * decoder, for every error in the recorded blocks and the other variants with payloads.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { txEncode, txErrDecode } from '@triton-one/yellowstone-grpc';
import { normalizeRpcBlock } from '../../../src/sources/normalize-rpc.js';
import { normalizeGeyserBlock } from '../../../src/sources/yellowstone/normalize.js';
import { geyserBlock } from '../../helpers/geyser/block.js';
import { encodeTransactionError } from '../../helpers/geyser/tx-error.js';

const DIR = join(import.meta.dirname, '../../fixtures/photon-blocks');
const BLOCKS = [
  { slot: 254170887, file: join(DIR, 'index_block_metadata/254170887') },
  { slot: 270893658, file: join(DIR, 'get_lanon_voting_signatures/270893658') },
];
const load = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
/** The base64 encoding in the client's `WasmUiTransactionEncoding`. */
const BASE64 = 1;

describe('Yellowstone block normaliser on recorded mainnet blocks', () => {
  for (const { slot, file } of BLOCKS) {
    it(`slot ${slot}: the stand-in's block update encodes back to the recorded JSON (client's own encoder)`, () => {
      const rpc = load(file);
      const update = geyserBlock(rpc, slot);
      expect(update.transactions.length).toBe(rpc.transactions.length);
      for (let i = 0; i < rpc.transactions.length; i++) {
        const back = txEncode.encode(update.transactions[i], BASE64 as never, 0, false) as { meta: { rewards: unknown } };
        // Block transactions carry no rewards (the client prints null for "not requested").
        back.meta.rewards = rpc.transactions[i].meta.rewards;
        expect(JSON.stringify(back)).toBe(JSON.stringify(rpc.transactions[i]));
      }
    });

    it(`slot ${slot}: normalises to the same Block as getBlock does (votes left out, positions kept)`, () => {
      const rpc = load(file);
      const expected = normalizeRpcBlock(rpc, slot, { skipVotes: true });
      const got = normalizeGeyserBlock(geyserBlock(rpc, slot));
      expect(got.transactions.length).toBe(expected.transactions.length);
      expect(got.transactions.length).toBeGreaterThan(0);
      expect(got).toEqual(expected);
    });
  }

  it('transaction order comes from each transaction\'s index, not the update\'s order', () => {
    const { slot, file } = BLOCKS[0];
    const rpc = load(file);
    const update = geyserBlock(rpc, slot);
    update.transactions.reverse();
    expect(normalizeGeyserBlock(update)).toEqual(normalizeRpcBlock(rpc, slot, { skipVotes: true }));
  });

  it('a transaction whose lookups disagree with its loaded addresses is refused with the field named', () => {
    const { slot, file } = BLOCKS[0];
    const update = geyserBlock(load(file), slot);
    const v0 = update.transactions.find((t) => t.transaction!.message!.addressTableLookups.length > 0)!;
    v0.meta!.loadedWritableAddresses.push(new Uint8Array(32));
    expect(() => normalizeGeyserBlock(update)).toThrow(/loadedAddresses/);
  });
});

describe('transaction errors (bincode, as the plugin sends them)', () => {
  it('every error of the recorded blocks and each variant with a payload decodes back to its JSON-RPC form', () => {
    const errors = new Map<string, unknown>();
    for (const { file } of BLOCKS) {
      for (const t of load(file).transactions) if (t.meta.err) errors.set(JSON.stringify(t.meta.err), t.meta.err);
    }
    expect(errors.size).toBeGreaterThan(10);
    for (const e of [
      'AccountInUse', 'CommitCancelled', { DuplicateInstruction: 4 }, { InsufficientFundsForRent: { account_index: 2 } },
      { ProgramExecutionTemporarilyRestricted: { account_index: 3 } }, { InstructionError: [0, 'InvalidArgument'] },
      { InstructionError: [1, 'BuiltinProgramsMustConsumeComputeUnits'] }, { InstructionError: [7, { Custom: 4294967295 }] },
    ]) errors.set(JSON.stringify(e), e);
    for (const [text, err] of errors) expect(JSON.stringify(txErrDecode.decode(encodeTransactionError(err)))).toBe(text);
  });
});
