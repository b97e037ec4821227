/** The ZK settings of the configuration: PROVER_URL (optional http(s) URL), SOLGATE_ZK_MAX_LAG_SLOTS, SOLGATE_PROOF_MEMO_PAIRS. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';

describe('ZK configuration', () => {
  it('PROVER_URL is optional and must be an http(s) URL; the health lag defaults to 20', () => {
    expect(loadConfig({})).toMatchObject({ proverUrl: undefined, zkMaxLagSlots: 20 });
    expect(loadConfig({ PROVER_URL: 'http://127.0.0.1:3001', SOLGATE_ZK_MAX_LAG_SLOTS: '50' })).toMatchObject({ proverUrl: 'http://127.0.0.1:3001', zkMaxLagSlots: 50 });
    expect(() => loadConfig({ PROVER_URL: 'ftp://prover' })).toThrow(ConfigError);
    expect(() => loadConfig({ PROVER_URL: 'not a url' })).toThrow(/PROVER_URL/);
    expect(() => loadConfig({ SOLGATE_ZK_MAX_LAG_SLOTS: '-1' })).toThrow(/SOLGATE_ZK_MAX_LAG_SLOTS/);
  });

  it('SOLGATE_PROOF_MEMO_PAIRS: 2^19 by default, 4096 to 2^24', () => {
    expect(loadConfig({}).proofMemoPairs).toBe(524_288);
    expect(loadConfig({ SOLGATE_PROOF_MEMO_PAIRS: '4096' }).proofMemoPairs).toBe(4096);
    for (const bad of ['4095', '16777217', 'lots', '-1']) expect(() => loadConfig({ SOLGATE_PROOF_MEMO_PAIRS: bad })).toThrow(/SOLGATE_PROOF_MEMO_PAIRS/);
  });
});
