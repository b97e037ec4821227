/**
 * The noop event decoder against the generated `@metaplex-foundation/spl-account-compression` serializer (installed
 * with mpl-bubblegum), on every noop payload of the recorded transactions (spl-noop and mpl-noop).
 */
import { getAccountCompressionEventSerializer } from '@metaplex-foundation/spl-account-compression';
import { describe, expect, it } from 'vitest';
import { bytesToBase58 } from '../../../src/core/encoding.js';
import { walkTransaction } from '../../../src/parsers/walk.js';
import {
  COMPRESSION_PROGRAM_BY_NOOP,
  decodeCompressionNoop,
  MPL_NOOP_PROGRAM,
  SPL_NOOP_PROGRAM,
} from '../../../src/parsers/account-compression/events.js';
import { allDasTransactions } from './helpers.js';

const noops = allDasTransactions().flatMap((t) =>
  walkTransaction(t.tx).filter((ix) => COMPRESSION_PROGRAM_BY_NOOP.has(ix.programId)),
);

describe('account-compression noop events', () => {
  it('the recorded transactions carry both noop programs', () => {
    expect(new Set(noops.map((n) => n.programId))).toEqual(new Set([SPL_NOOP_PROGRAM, MPL_NOOP_PROGRAM]));
  });

  it('decodes every payload as the client serializer does; others are skipped, not errors', () => {
    const reference = getAccountCompressionEventSerializer();
    let decoded = 0;
    for (const ix of noops) {
      const mine = decodeCompressionNoop(ix.programId, ix.data);
      let ref: ReturnType<typeof reference.deserialize>[0] | null = null;
      try {
        ref = reference.deserialize(ix.data)[0];
      } catch {
        ref = null;
      }
      if (ref === null || ix.data[0] > 1) {
        expect(mine).toBeNull();
        continue;
      }
      decoded++;
      if (ref.__kind === 'ChangeLog') {
        const cl = ref.fields[0].fields[0];
        expect(mine).toEqual({
          kind: 'changeLog',
          changeLog: {
            tree: cl.id,
            compressionProgram: COMPRESSION_PROGRAM_BY_NOOP.get(ix.programId),
            seq: cl.seq,
            leafIndex: cl.index,
            path: cl.path.map((p) => ({ node: bytesToBase58(p.node), index: p.index })),
          },
        });
      } else {
        expect(mine).toEqual({
          kind: 'applicationData',
          compressionProgram: COMPRESSION_PROGRAM_BY_NOOP.get(ix.programId),
          data: ref.fields[0].fields[0].applicationData,
        });
      }
    }
    expect(decoded).toBeGreaterThan(100);
    // One recorded payload is a caller's own log through spl-noop (first byte 3): skipped.
    expect(noops.some((n) => n.data[0] === 3 && decodeCompressionNoop(n.programId, n.data) === null)).toBe(true);
  });

  it('never throws on truncated or foreign data', () => {
    const sample = noops.find((n) => n.data[0] === 0)!;
    for (let len = 0; len < sample.data.length; len += 7) {
      expect(decodeCompressionNoop(sample.programId, sample.data.subarray(0, len))).toBeNull();
    }
    expect(decodeCompressionNoop('11111111111111111111111111111111', sample.data)).toBeNull();
  });
});
