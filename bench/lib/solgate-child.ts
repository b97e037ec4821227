/** `solgate <command>` as a benchmark's child process (bench/sender.ts, bench/rpc.ts): started, read until ready. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './report.js';

export interface Child {
  proc: ChildProcess;
  /** The last 50 lines it printed (for an error message). */
  output: string[];
}

/**
 * Starts `solgate <args>` (no DATABASE_URL or SOLANA_RPC_URL unless `env` gives them); resolves with the child and
 * the value `ready` finds in the first output line it recognises. `label` prefixes errors (e.g. 'sender bench').
 */
export function startSolgate<T>(label: string, what: string, args: string[], env: Record<string, string>, children: Child[], ready: (line: string) => T | null): Promise<{ child: Child; value: T }> {
  const proc = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'solgate.js'), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, DATABASE_URL: '', SOLANA_RPC_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const child: Child = { proc, output: [] };
  children.push(child);
  return new Promise((resolve, reject) => {
    let found = false;
    const timer = setTimeout(() => reject(new Error(`${label}: ${what} did not start within 60 s\n${child.output.join('\n')}`)), 60_000);
    let partial = '';
    const onData = (d: Buffer) => {
      const lines = (partial + d.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        child.output.push(line);
        if (child.output.length > 50) child.output.shift();
        if (found) continue;
        const v = ready(line);
        if (v !== null) {
          found = true;
          clearTimeout(timer);
          resolve({ child, value: v });
        }
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (!found) reject(new Error(`${label}: ${what} exited (${code ?? signal})\n${child.output.join('\n')}`));
    });
    proc.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

/**
 * `solgate localnet --port 0` (no Light genesis: not needed, 0.2 s faster) with slots of `slotMs`; resolves with
 * its JSON-RPC URL and faucet address.
 */
export async function startLocalnet(label: string, slotMs: number, children: Child[]): Promise<{ url: string; faucet: string; child: Child }> {
  const { value, child } = await startSolgate(label, 'solgate localnet', ['localnet', '--port', '0'], {
    SOLGATE_LOCALNET_SLOT_MS: String(slotMs), SOLGATE_LOCALNET_LIGHT: 'false', LOG_LEVEL: 'warn',
  }, children, (line) => {
    const m = /localnet JSON-RPC on (http:\/\/\S+) \(faucet (\w+)\)/.exec(line);
    return m ? { url: m[1], faucet: m[2] } : null;
  });
  return { ...value, child };
}
