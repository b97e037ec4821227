/**
 * DAS conformance: reference cases replayed (in order, or in every permutation where the case says so) and
 * compared with the reference's recorded outputs. Every recorded case runs.
 *
 * The reference is the open-source DAS; fungible assets' `token_info.symbol` (and `price_info`, when a price is
 * known: none is here) are what the hosted service adds to it (src/api/das/price-info.ts). They are checked to be the
 * asset's own metadata symbol, then left out of the comparison.
 */
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/app.js';
import { resetChainTables } from '../helpers/db.js';
import { applyInputs, applyMutation, callRpc, expectedOf, loadCases, mutationVariants, type DasInput } from './harness.js';

type Json = Record<string, unknown>;

/** The result without the hosted service's additions to fungibles' token_info, each checked first. */
function withoutHostedAdditions(result: unknown): unknown {
  if (!result || typeof result !== 'object') return result;
  const strip = (a: Json | null): Json | null => {
    const ti = a?.token_info as Json | undefined;
    if (!a || !ti || !('symbol' in ti || 'price_info' in ti)) return a;
    expect(['FungibleToken', 'FungibleAsset']).toContain(a.interface);
    expect(ti.symbol).toBe(((a.content as Json).metadata as Json).symbol);
    expect(ti.price_info).toBeUndefined();
    const { symbol: _s, price_info: _p, ...rest } = ti;
    return { ...a, token_info: rest };
  };
  if (Array.isArray(result)) return result.map((a) => strip(a as Json | null));
  const r = result as Json;
  if (Array.isArray(r.items)) return { ...r, items: r.items.map((a) => strip(a as Json)) };
  return strip(r);
}

function permutations<T>(xs: T[]): T[][] {
  if (xs.length <= 1) return [xs];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
}

describe('DAS reference cases', () => {
  const cases = loadCases();
  for (const c of cases) {
    it(`${c.id} (${c.method})`, async () => {
      const orders: DasInput[][][] = c.replay.order === 'allPermutations' ? permutations(c.inputs) : [c.inputs];
      const want = expectedOf(c);
      const ta = await createTestApp();
      try {
        for (const order of orders) for (const mutations of mutationVariants(c, cases)) {
          await resetChainTables(ta.t.db);
          await applyInputs(ta, order);
          for (const m of mutations) {
            const before = m.stale ? await callRpc(ta, c.method, c.params) : null;
            await applyMutation(ta, c, m);
            if (before) expect(await callRpc(ta, c.method, c.params), `stale update of ${m.pubkey} at slot ${m.slot} must be rejected`).toEqual(before);
          }
          const res = await callRpc(ta, c.method, c.params);
          const label = `order ${JSON.stringify(order.map((g) => g.map((i) => i.decoded.split('/').pop())))}`;
          if (want === null) expect(res.error, `${label}: ${JSON.stringify(res)}`).toBeDefined();
          else expect(withoutHostedAdditions(res.result), `${label}: ${JSON.stringify(res.error)}`).toEqual(want);
        }
      } finally {
        await ta.close();
      }
    });
  }
});
