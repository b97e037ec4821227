/**
 * Parsers against recorded mainnet/devnet/localnet transactions: Geyser-style DAS records (no meta) and
 * getTransaction responses (with meta). Decoded values are checked against facts read independently: recorded
 * account states, program logs, and the lamport / token balances in the meta.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getMintDecoder, getTokenDecoder } from '@solana-program/token';
import { describe, expect, it } from 'vitest';
import { base64ToBytes } from '../../src/core/encoding.js';
import { TOKEN_PROGRAM } from '../../src/core/programs.js';
import { solDeltas, tokenDeltas } from '../../src/parsers/balances.js';
import { walkTransaction } from '../../src/parsers/walk.js';
import type { DomainEvent } from '../../src/parsers/events.js';
import { parseTransaction } from '../../src/parsers/registry.js';
import {
  FIXTURES,
  fromGeyserFixture,
  fromRpcFixture,
  type GeyserTxFixture,
  loadFixtures,
  type RpcTxFixture,
  show,
} from './helpers.js';

const DAS = join(FIXTURES, 'das', 'decoded');
const readJson = <T>(p: string): T => JSON.parse(readFileSync(p, 'utf8')) as T;
const account = (test: string, key: string) =>
  base64ToBytes(readJson<{ data: [string, string] }>(join(DAS, 'accounts', test, `${key}.json`)).data[0]);

describe('DAS Geyser-style records', () => {
  // Bubblegum decompress: the program CPIs System + Token + ATA to create a real SPL mint and mint the NFT.
  const sig = '3Ct9n9hv5PWEYbsrgDdUDqegzsnX2n5jYRxkq5YafFAueup8mTYmN4nHhNCaEwVyVAVqNssr4fizdg9wRavT7ydE';
  const raw = readJson<GeyserTxFixture>(join(DAS, 'transactions', 'asset_decompress', `${sig}.json`));
  const tx = fromGeyserFixture(raw);
  const events = parseTransaction(tx);
  const mintKey = 'Az9QTysJj1LW1F7zkYF21HgBj3FRpq3zpxTFdPnAJYm8';
  const tokenKey = 'B5PfwkTK4WQtm5wqmb8ViTXiw9bvQgaJwVSbtssbmRvJ';
  const mintState = getMintDecoder().decode(account('asset_decompress', mintKey));
  const tokenState = getTokenDecoder().decode(account('asset_decompress', tokenKey));

  it('decodes the NFT mint: initializeMint2 / initializeAccount3 / mintTo / setAuthority match the recorded accounts', () => {
    const token = events.filter((e) => e.kind.startsWith('token.'));
    expect(token.map((e) => e.kind)).toEqual([
      'token.initMint',
      'token.initAccount',
      'token.mintTo',
      'token.setAuthority',
      'token.setAuthority',
    ]);
    const [init, initAcc, mintTo, setMint, setFreeze] = token;
    expect(init).toMatchObject({ program: TOKEN_PROGRAM, mint: mintKey, decimals: mintState.decimals });
    expect(mintState.decimals).toBe(0);
    expect(initAcc).toMatchObject({ account: tokenKey, mint: tokenState.mint, owner: tokenState.owner });
    expect(mintTo).toMatchObject({ mint: mintKey, account: tokenKey, amount: tokenState.amount, decimals: null });
    expect(tokenState.amount).toBe(1n);
    expect(mintState.supply).toBe(1n);
    // Authorities end up with the edition account, as the recorded mint says.
    expect(setMint).toMatchObject({ target: mintKey, authorityType: 'mintTokens' });
    expect(setFreeze).toMatchObject({ target: mintKey, authorityType: 'freezeAccount' });
    expect(mintState.mintAuthority).toEqual({ __option: 'Some', value: (setMint as { newAuthority: string }).newAuthority });
    expect(mintState.freezeAuthority).toEqual({ __option: 'Some', value: (setFreeze as { newAuthority: string }).newAuthority });
  });

  it('mint and token accounts are created by System CPIs in the same order, with the token program as owner', () => {
    const created = events.filter((e) => e.kind === 'sol.createAccount');
    expect(created.slice(0, 2)).toMatchObject([
      { account: mintKey, owner: TOKEN_PROGRAM, space: 82n },
      { account: tokenKey, owner: TOKEN_PROGRAM, space: 165n },
    ]);
    // Every event of this transaction comes from the CPIs of outer instruction 1 (the Bubblegum call).
    expect(new Set(events.map((e) => e.path.outer))).toEqual(new Set([1]));
    const inner = events.map((e) => e.path.inner!);
    expect([...inner].sort((a, b) => a - b)).toEqual(inner);
  });

  it('every recorded DAS transaction parses without parse.failed or exceptions', () => {
    const all = loadFixtures<GeyserTxFixture>(join(DAS, 'transactions'));
    expect(all.length).toBeGreaterThan(50);
    const failures = all.flatMap(({ file, json }) =>
      parseTransaction(fromGeyserFixture(json))
        .filter((e) => e.kind === 'parse.failed')
        .map((e) => [file, e]),
    );
    expect(failures, show(failures)).toEqual([]);
  });
});

describe('recorded getTransaction responses (photon-transactions)', () => {
  const all = loadFixtures<RpcTxFixture>(join(FIXTURES, 'photon-transactions')).map(({ file, json }) => ({
    file,
    tx: fromRpcFixture(json),
  }));

  it('walk order equals the invoke order in the program logs, and follows meta.innerInstructions', () => {
    expect(all.length).toBeGreaterThan(100);
    for (const { file, tx } of all) {
      const invoked = tx.logMessages!.map((l) => /^Program (\w+) invoke \[\d+\]$/.exec(l)?.[1]).filter(Boolean);
      const walked = walkTransaction(tx);
      expect(walked.map((w) => w.programId), file).toEqual(invoked);
      for (const g of tx.innerInstructions) {
        const mine = walked.filter((w) => w.path.outer === g.index && w.path.inner !== null);
        expect(mine.map((w) => w.programId), file).toEqual(g.instructions.map((i) => tx.accountKeys[i.programIdIndex]));
      }
    }
  });

  it('System transfers plus the fee explain every lamport balance change', () => {
    let transfers = 0;
    for (const { file, tx } of all) {
      const events = parseTransaction(tx);
      expect(events.filter((e) => e.kind === 'parse.failed'), file).toEqual([]);
      const net = new Map<string, bigint>([[tx.accountKeys[0], -tx.meta!.fee]]);
      for (const e of events) {
        if (e.kind !== 'sol.transfer') continue;
        transfers++;
        net.set(e.from, (net.get(e.from) ?? 0n) - e.lamports);
        net.set(e.to, (net.get(e.to) ?? 0n) + e.lamports);
      }
      const deltas = new Map(solDeltas(tx).map((d) => [d.account, d.delta]));
      for (const [acc, v] of net) expect(deltas.get(acc) ?? 0n, `${file} ${acc}`).toBe(v);
      for (const [acc, v] of deltas) expect(net.get(acc) ?? 0n, `${file} ${acc}`).toBe(v);
    }
    expect(transfers).toBeGreaterThan(100);
  });

  it('token mintTo CPIs agree with the token balance meta', () => {
    const withTokens = all.filter(({ tx }) => (tx.meta!.postTokenBalances ?? []).length > 0);
    expect(withTokens.length).toBeGreaterThanOrEqual(2);
    for (const { file, tx } of withTokens) {
      const mints = parseTransaction(tx).filter((e): e is Extract<DomainEvent, { kind: 'token.mintTo' }> => e.kind === 'token.mintTo');
      expect(mints.length, file).toBe(1);
      const [d] = tokenDeltas(tx).filter((x) => x.account === mints[0].account);
      expect(d, file).toMatchObject({ mint: mints[0].mint, delta: mints[0].amount, changed: true, programId: TOKEN_PROGRAM });
    }
  });
});
