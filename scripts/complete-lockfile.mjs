#!/usr/bin/env node
/**
 * Adds lockfile entries for platform-specific optional packages that the package registry of the build
 * machines does not carry (it mirrors only the linux-x64 builds of e.g. litesvm and rollup). npm 11 `npm ci`
 * refuses a lockfile that lacks any entry named in an `optionalDependencies` map, even for other platforms.
 * The entries get the version, `optional: true` and the os/cpu/libc that npm uses to skip them, exactly as npm
 * writes them when it can see the packages. Run after any `npm install` that rewrites package-lock.json.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const OS = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openbsd', 'netbsd', 'sunos', 'aix', 'openharmony'];
const CPU = { arm64: 'arm64', x64: 'x64', ia32: 'ia32', arm: 'arm', loong64: 'loong64', ppc64: 'ppc64', riscv64: 'riscv64', s390x: 's390x' };

function platformOf(name) {
  const base = name.split('/').pop();
  const parts = base.split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.map((p) => CPU[p]).find(Boolean);
  const libc = base.includes('musl') ? 'musl' : base.includes('linux') && (base.includes('gnu') || !base.includes('musl')) ? 'glibc' : undefined;
  return { os, cpu, libc: os === 'linux' ? libc : undefined };
}

const path = process.argv[2] ?? 'package-lock.json';
const lock = JSON.parse(readFileSync(path, 'utf8'));
const pkgs = lock.packages;
let added = 0;
for (const [key, entry] of Object.entries(pkgs)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const target = `node_modules/${dep}`;
    if (pkgs[target]) continue;
    const { os, cpu, libc } = platformOf(dep);
    if (!os || !cpu) {
      console.error(`cannot tell the platform of ${dep} (needed by ${key}); add it by hand`);
      process.exitCode = 1;
      continue;
    }
    pkgs[target] = { version, ...(cpu ? { cpu: [cpu] } : {}), license: entry.license, optional: true, os: [os], ...(libc ? { libc: [libc] } : {}) };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(pkgs).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)));
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${added} platform entries to ${path}`);
