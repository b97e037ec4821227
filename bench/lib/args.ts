/** Minimal `--name value` / `--name=value` / `--flag` parsing for benchmark options. */

/** Parsed options: flag name (without dashes) → value (`true` for bare flags). */
export type Flags = Record<string, string | true>;

export function parseFlags(argv: readonly string[]): Flags {
  const out: Flags = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) continue;
    const eq = a.indexOf('=');
    if (eq > 0) out[a.slice(2, eq)] = a.slice(eq + 1);
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) out[a.slice(2)] = argv[++i];
    else out[a.slice(2)] = true;
  }
  return out;
}

/** A positive number option, or `fallback`; throws a readable error on garbage. */
export function numberFlag(flags: Flags, name: string, fallback: number): number {
  const v = flags[name];
  if (v === undefined) return fallback;
  const n = Number(v);
  if (v === true || !Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a non-negative number, got ${String(v)}`);
  return n;
}
