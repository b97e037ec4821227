/**
 * Guards the import rules of /work/shared/design/architecture.md ("Imports go one way"): every relative import,
 * `export … from`, dynamic `import()` and `import type` of every module under src is read with the TypeScript
 * compiler's pre-processor (no type check, so this is fast) and checked against
 *  - the folder layering below (a whitelist: a new cross-folder dependency is a deliberate edit here);
 *  - no import cycles between src modules (type-only imports included: they still tie the modules together);
 *  - only src/store touches the database driver; only src/config reads `process.env`.
 * Known debts are listed file by file in KNOWN_EXCEPTIONS; an entry that no longer exists fails the test, so the
 * list only shrinks.
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

/**
 * Which top-level folders of src each folder may import (besides itself). From the architecture:
 * `parsers → core`; `store → core`; `ingest → sources, parsers, store`; `api, proofs, webhooks, sender → store,
 * core` (never `ingest`); core imports nothing else. Folders the picture does not name sit where their use puts
 * them: `vendor` re-exports third-party clients (bundled by the build) for the layers that use them; `enhanced` is
 * pure classification over parsers (used by api, webhooks and ingest); `net` (outbound HTTP guards), `identity`,
 * `offchain`, `pricing` and `accounts` are services over store/core; `cli` composes everything.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  core: [],
  // Third-party entry points (src/vendor/README.md): they import no module of src.
  vendor: [],
  config: ['core'],
  parsers: ['core', 'vendor'],
  store: ['core', 'vendor'],
  proofs: ['core', 'store'],
  enhanced: ['core', 'parsers'],
  net: ['core'],
  pricing: ['core', 'store'],
  identity: ['core', 'parsers', 'store'],
  offchain: ['core', 'config', 'net', 'store'],
  accounts: ['core', 'config', 'store'],
  sources: ['core', 'parsers'],
  webhooks: ['core', 'config', 'store', 'enhanced', 'net'],
  sender: ['core', 'config', 'store', 'vendor'],
  ingest: ['core', 'sources', 'parsers', 'store', 'enhanced', 'proofs', 'webhooks'],
  api: ['core', 'config', 'store', 'parsers', 'enhanced', 'proofs', 'webhooks', 'sender', 'net', 'identity', 'offchain', 'pricing', 'accounts', 'vendor'],
  cli: ['*'],
  // SQL files only.
  migrations: [],
};

/**
 * Edges (importer → imported, paths relative to src) that break the layering today and are left to their owners.
 * Remove an entry when it is fixed; never add one without a reason.
 */
const KNOWN_EXCEPTIONS: Record<string, string> = {
  // DAS asset rendering lives in api/das; the asset indexer renders rows with it. Fix: move asset-json and
  // load-assets to store (or a das/ folder below api and ingest).
  'ingest/asset-index.ts -> api/das/load-assets.ts': 'asset indexer renders through the DAS API code',
  'ingest/asset-index.ts -> api/das/asset-json.ts': 'asset indexer renders through the DAS API code',
  'ingest/asset-index-row.ts -> api/das/asset-json.ts': 'asset indexer renders through the DAS API code',
  // Fix: move parseAllowEntry/IpRange into net and let api/plugins/ip-allow.ts import them.
  'net/address-policy.ts -> api/plugins/ip-allow.ts': 'allow-list parsing lives in an api plugin',
  // The /fast routes are Fastify routes using the API's auth and error bodies. Fix: move sender/routes.ts to api/.
  'sender/routes.ts -> api/plugins/auth.ts': 'sender routes are API routes',
  'sender/routes.ts -> api/wire/errors.ts': 'sender routes are API routes',
  // The architecture says api never imports sources. Fix: move the RPC wire → NormalizedTx decoding below both
  // (core or parsers) or pass it in through ApiDeps.
  'api/rest/transactions.ts -> sources/normalize-rpc.ts': 'parse-transactions endpoint normalises RPC JSON itself',
};

/** Only these folders may import the database drivers (the architecture: "Only store touches the database driver"). */
const DB_DRIVERS = ['pg', '@electric-sql/pglite'];
const DB_FOLDERS = ['store'];

interface Module {
  file: string; // relative to src, '/'-separated
  text: string;
  deps: string[]; // relative to src
  packages: string[];
}

function listTs(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...listTs(p));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const rel = (abs: string) => relative(SRC, abs).split('\\').join('/');

function resolveImport(from: string, spec: string): string | null {
  const base = resolve(dirname(from), spec);
  const candidates = [base.replace(/\.js$/, '.ts'), base, `${base}.ts`, join(base, 'index.ts')];
  return candidates.find((c) => c.endsWith('.ts') && existsSync(c)) ?? null;
}

function loadModules(): Map<string, Module> {
  const mods = new Map<string, Module>();
  for (const abs of listTs(SRC)) {
    const text = readFileSync(abs, 'utf8');
    const info = ts.preProcessFile(text, true, true);
    const deps = new Set<string>();
    const packages = new Set<string>();
    for (const { fileName } of info.importedFiles) {
      if (!fileName.startsWith('.')) {
        packages.add(fileName);
        continue;
      }
      const target = resolveImport(abs, fileName);
      if (target === null) throw new Error(`${rel(abs)}: cannot resolve import '${fileName}'`);
      if (!target.startsWith(SRC)) throw new Error(`${rel(abs)}: imports '${fileName}' outside src`);
      deps.add(rel(target));
    }
    mods.set(rel(abs), { file: rel(abs), text, deps: [...deps], packages: [...packages] });
  }
  return mods;
}

const folderOf = (file: string) => (file.includes('/') ? file.split('/')[0] : '.');

/** Strongly connected components with more than one module (or a module importing itself): Tarjan. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return out;
}

/** One concrete loop through an SCC, for a readable failure message. */
function loopIn(scc: string[], graph: ReadonlyMap<string, readonly string[]>): string {
  const inScc = new Set(scc);
  const path = [scc[0]];
  const seen = new Set(path);
  for (;;) {
    const cur = path[path.length - 1];
    const nxt = (graph.get(cur) ?? []).filter((d) => inScc.has(d));
    const back = nxt.find((d) => seen.has(d));
    if (back !== undefined) return [...path.slice(path.indexOf(back)), back].join(' -> ');
    path.push(nxt[0]);
    seen.add(nxt[0]);
  }
}

const mods = loadModules();
const graph = new Map([...mods.values()].map((m) => [m.file, m.deps] as const));
const edges = [...mods.values()].flatMap((m) => m.deps.map((d) => ({ from: m.file, to: d })));

describe('architecture: imports of src', () => {
  it('reads the source tree', () => {
    expect(mods.size).toBeGreaterThan(100);
    expect(edges.length).toBeGreaterThan(300);
  });

  it('has no import cycles between modules (type-only imports included)', () => {
    expect(cycles(graph).map((c) => loopIn(c, graph))).toEqual([]);
  });

  it('every folder of src has a layering rule', () => {
    const folders = new Set([...mods.keys()].map(folderOf));
    expect([...folders].filter((f) => !(f in MAY_IMPORT)).sort()).toEqual([]);
  });

  it('folders import only the layers below them (architecture: "Imports go one way")', () => {
    const bad: string[] = [];
    for (const { from, to } of edges) {
      const a = folderOf(from);
      const b = folderOf(to);
      if (a === b) continue;
      const allowed = MAY_IMPORT[a] ?? [];
      if (allowed.includes('*') || allowed.includes(b)) continue;
      const key = `${from} -> ${to}`;
      if (!(key in KNOWN_EXCEPTIONS)) bad.push(key);
    }
    expect(bad.sort()).toEqual([]);
  });

  it('the named rules hold outright: nothing but cli imports ingest; store imports no webhooks/api/ingest; parsers and core import no store', () => {
    const bad = edges
      .map(({ from, to }) => ({ a: folderOf(from), b: folderOf(to), key: `${from} -> ${to}` }))
      .filter(
        ({ a, b }) =>
          (b === 'ingest' && a !== 'ingest' && a !== 'cli') ||
          (a === 'store' && ['webhooks', 'api', 'ingest', 'enhanced', 'sources', 'cli'].includes(b)) ||
          ((a === 'parsers' || a === 'core') && b === 'store') ||
          (a === 'core' && b !== 'core'),
      )
      .map((e) => e.key);
    expect(bad.sort()).toEqual([]);
  });

  it('every known exception still exists (remove fixed ones from KNOWN_EXCEPTIONS)', () => {
    const present = new Set(edges.map(({ from, to }) => `${from} -> ${to}`));
    expect(Object.keys(KNOWN_EXCEPTIONS).filter((k) => !present.has(k))).toEqual([]);
  });

  it('only store imports the database driver', () => {
    const bad = [...mods.values()]
      .filter((m) => !DB_FOLDERS.includes(folderOf(m.file)))
      .flatMap((m) => m.packages.filter((p) => DB_DRIVERS.some((d) => p === d || p.startsWith(`${d}/`))).map((p) => `${m.file} -> ${p}`));
    expect(bad).toEqual([]);
  });

  it('only config reads process.env', () => {
    const bad = [...mods.values()].filter((m) => folderOf(m.file) !== 'config' && /\bprocess\.env\b/.test(m.text)).map((m) => m.file);
    expect(bad).toEqual([]);
  });
});

describe('architecture test: cycle finder', () => {
  it('finds a loop, and none in a chain', () => {
    const g = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(cycles(g)).toEqual([['a', 'b', 'c']]);
    expect(loopIn(['a', 'b', 'c'], g)).toBe('a -> b -> c -> a');
    expect(cycles(new Map([['a', ['b']], ['b', []]]))).toEqual([]);
  });
});
