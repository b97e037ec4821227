// Builds the JavaScript that `solgate` (bin/solgate.js) and `npm start` run: src/**/*.ts compiled by tsc into dist/
// (same folder layout), the non-code files the code reads beside it (SQL migrations, dashboard files), and a stamp
// whose time bin/solgate.js compares with src/ to tell a current build from a stale one (scripts/build-state.mjs).
// `npm ci` runs it (prepare).
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildIsCurrent } from './build-state.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// `--if-stale`: nothing to do when dist/ is a build of the current sources (the test setup's call).
if (process.argv.includes('--if-stale') && buildIsCurrent(root)) process.exit(0);
const started = Date.now();
let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  // An install without devDependencies: bin/solgate.js runs the TypeScript sources through tsx instead.
  console.error('solgate build: typescript is not installed (devDependencies omitted); skipping the build');
  process.exit(0);
}
const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
if (r.status !== 0) process.exit(r.status ?? 1);
await bundleVendor();
// Copied afresh, not over the last build's: a migration file left from another checkout (a switched branch) would
// be applied by the next start.
for (const [from, to] of [[['src', 'migrations'], ['dist', 'migrations']], [['src', 'api', 'admin', 'static'], ['dist', 'api', 'admin', 'static']]]) {
  rmSync(join(root, ...to), { recursive: true, force: true });
  cpSync(join(root, ...from), join(root, ...to), { recursive: true });
}
mkdirSync(join(root, 'dist'), { recursive: true });
// The stamp carries the time the build started: a source saved during the build counts as newer.
writeFileSync(join(root, 'dist', '.build-stamp'), `${started}\n`);
console.error(`solgate build: dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s`);

/**
 * dist/vendor/: the modules of src/vendor (re-exports of the Metaplex program clients, Umi, @solana/kit and the
 * @solana-program clients) bundled by esbuild, replacing tsc's plain re-exports, which would load the packages' ~1,000
 * files (src/vendor/README.md).
 *
 * The Metaplex packages are CommonJS, whose exports a bundler cannot list, so an `export * from 'X'` line becomes
 * `require('X')` and named exports of what it holds (as Node.js would give them to an import); Umi, re-exported the
 * same way, is then taken through `require` as the clients take it, so it is in the bundle once. An
 * `export { … } from 'X'` line (`@solana/kit` and the `@solana-program` clients, ES modules) stays a named re-export,
 * and esbuild keeps only what those names need. Shared code goes into chunks. `require` of Node.js built-ins inside
 * the bundle is given by `createRequire`. Without esbuild the re-exports stay, which work as they are.
 */
async function bundleVendor() {
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    console.error('solgate build: esbuild is not installed; dist/vendor/ re-exports the Metaplex packages unbundled');
    return;
  }
  const src = join(root, 'src', 'vendor');
  const out = join(root, 'dist', 'vendor');
  const entries = join(root, 'dist', '.vendor-entries');
  const req = createRequire(join(root, 'package.json'));
  rmSync(entries, { recursive: true, force: true });
  mkdirSync(entries, { recursive: true });
  const entryPoints = [];
  for (const file of readdirSync(src).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(join(src, file), 'utf8');
    const lines = [];
    let k = 0;
    for (const m of text.matchAll(/^export (\*|\{([^}]*)\}) from '([^']+)';$/gm)) {
      const spec = m[3];
      if (m[1] === '*') {
        // A CommonJS package: what its exports object holds, through `require`.
        const names = Object.keys(req(spec)).filter((n) => n !== 'default' && n !== '__esModule' && /^[A-Za-z_$][\w$]*$/.test(n));
        lines.push(`const m${k} = require(${JSON.stringify(req.resolve(spec))});`, `export const { ${names.join(', ')} } = m${k};`);
      } else {
        // Names (`a, b as c, type T`): re-exported as they are (type-only ones left out), so that esbuild keeps only
        // what they need of an ES-module package.
        const names = m[2].split(',').map((n) => n.trim()).filter((n) => n && !n.startsWith('type '));
        lines.push(`export { ${names.join(', ')} } from ${JSON.stringify(spec)};`);
      }
      k++;
    }
    if (!k) throw new Error(`solgate build: src/vendor/${file} re-exports nothing`);
    const entry = join(entries, file.replace(/\.ts$/, '.js'));
    writeFileSync(entry, `${lines.join('\n')}\n`);
    entryPoints.push(entry);
  }
  rmSync(out, { recursive: true, force: true });
  await esbuild.build({
    entryPoints,
    outdir: out,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    legalComments: 'inline',
    banner: { js: "import { createRequire as solgateCreateRequire } from 'node:module';\nconst require = solgateCreateRequire(import.meta.url);" },
    logLevel: 'warning',
  });
  rmSync(entries, { recursive: true, force: true });
}
