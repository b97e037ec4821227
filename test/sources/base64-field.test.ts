/**
 * `base64Bytes` (src/sources/fields.ts), the check of every base64 value a block or account carries: the bytes of
 * every transaction of the recorded mainnet block 254170887 are what an independent decoder gives (`atob`, which
 * accepts standard base64 only), and anything that is not strict standard base64 is refused with the field's path.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { base64Bytes, encodedData } from '../../src/sources/fields.js';
import { MAINNET_BLOCK } from '../helpers/mainnet-block.js';

/** The reference: `atob` (WHATWG forgiving-base64: standard alphabet, optional padding, ASCII whitespace removed). */
const reference = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

describe('base64 fields', () => {
  it('decode every transaction of a real block to the bytes of an independent decoder', () => {
    const block = JSON.parse(readFileSync(MAINNET_BLOCK, 'utf8')) as { transactions: { transaction: [string, string] }[] };
    expect(block.transactions.length).toBe(602);
    for (const [i, t] of block.transactions.entries()) {
      expect(t.transaction[1]).toBe('base64');
      expect(Buffer.from(encodedData(t.transaction, `transactions[${i}].transaction`)).equals(Buffer.from(reference(t.transaction[0])))).toBe(true);
    }
  });

  it('take padded and unpadded groups alike', () => {
    for (const [s, bytes] of [['', []], ['QQ==', [65]], ['QQ', [65]], ['QUI=', [65, 66]], ['QUI', [65, 66]], ['QUJD', [65, 66, 67]], ['+/+/', [251, 255, 191]]] as const)
      expect([...base64Bytes(s, 'd')], s).toEqual(bytes);
  });

  it('refuse what is not strict standard base64, naming the field', () => {
    for (const bad of ['Q', 'QUJDR', 'QQ=', 'Q===', 'QQ==QQ==', ' QQ=', 'QQ\nQ', 'Q!==', 'QQ-_', 'QUJ_', 'QUJD\u00e9', 'QU JD', 42, null])
      expect(() => base64Bytes(bad, 'tx.data'), JSON.stringify(bad)).toThrow(/tx\.data/);
  });
});
