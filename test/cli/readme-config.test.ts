/** The configuration reference (docs/configuration.md) lists every variable the configuration reads, with its default. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENV_VARS } from '../../src/config/index.js';

describe('docs/configuration.md variable table', () => {
  const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'configuration.md'), 'utf8');
  const rows = new Map<string, string>();
  for (const m of doc.matchAll(/^\| `([A-Z0-9_]+)` \| ([^|]*) \|/gm)) rows.set(m[1], m[2].trim());
  it('has a row per variable, with the same default', () => {
    for (const v of ENV_VARS) {
      expect(rows.has(v.name), `docs/configuration.md is missing ${v.name}`).toBe(true);
      if (v.default) expect(rows.get(v.name), v.name).toContain(v.default);
    }
  });
  it('lists no variable the configuration does not read', () => {
    const names = new Set(ENV_VARS.map((v) => v.name));
    for (const name of rows.keys()) expect(names.has(name), `docs/configuration.md lists unknown ${name}`).toBe(true);
  });
});
