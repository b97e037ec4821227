/**
 * The instruction table against the installed mpl-bubblegum client: discriminators and account orders are read
 * from the generated umi instruction builders, so a client upgrade that changes either fails here.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUBBLEGUM_INSTRUCTIONS } from '../../../src/parsers/bubblegum/index.js';

const require = createRequire(import.meta.url);
const dir = join(dirname(require.resolve('@metaplex-foundation/mpl-bubblegum')), 'generated', 'instructions');
const client = readdirSync(dir)
  .filter((f) => f.endsWith('.js') && f !== 'index.js')
  .map((f) => {
    const src = readFileSync(join(dir, f), 'utf8');
    const disc = /discriminator: \[([\d, ]+)\]/.exec(src)![1].split(',').map((x) => Number(x.trim()));
    const accounts = [...src.matchAll(/^ {8}(\w+): \{\s*index: (\d+),/gm)]
      .map((m) => [m[1], Number(m[2])] as const)
      .sort((a, b) => a[1] - b[1])
      .map((a) => a[0]);
    return { name: f.slice(0, -3), discriminator: Buffer.from(disc).toString('hex'), accounts };
  });

describe('Bubblegum instruction table', () => {
  it('covers every instruction of the client', () => {
    expect(client.length).toBeGreaterThanOrEqual(34);
    expect([...BUBBLEGUM_INSTRUCTIONS.values()].map((s) => s.name).sort()).toEqual(client.map((c) => c.name).sort());
  });

  it.each(client.map((c) => [c.name, c] as const))('%s: discriminator and account order match the client', (_n, c) => {
    const spec = BUBBLEGUM_INSTRUCTIONS.get(c.discriminator);
    expect(spec?.name).toBe(c.name);
    expect(spec?.accounts).toEqual(c.accounts);
  });
});
