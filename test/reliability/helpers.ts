/**
 * Helpers the reliability suites share: a seeded RNG (kill and fault schedules are reproducible from a seed),
 * waiting for a condition with the recent child output in the error, a child's exit, a section reporter, and a
 * localnet workload recorded once for the crash and fault runs.
 */
import type { ChildProcess } from 'node:child_process';
import { createLocalnet, startDemoWorkload, type Localnet } from '../../src/sources/localnet/index.js';
import { rng } from '../helpers/rng.js';
import { record } from './report.js';

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export { rng };

/**
 * Polls `cond` every `everyMs` until it holds; after `ms` throws, naming `what` and the last lines of `output`
 * (the suite's collected child-process output) so a timeout explains itself.
 */
export async function until(
  what: string,
  cond: () => Promise<boolean> | boolean,
  ms: number,
  opts: { output?: readonly string[]; everyMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${(opts.output ?? []).slice(-20).join('')}`);
    await sleep(opts.everyMs ?? 20);
  }
}

/** Resolves when the child has exited (at once if it already has). */
export const exited = (c: ChildProcess) =>
  new Promise<void>((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once('exit', () => r())));

/** A reporter for one section: records the figures in the suite's report and prints them into the run's output. */
export function reporter(section: string): (figures: Record<string, unknown>) => void {
  return (figures) => {
    record(section, figures);
    console.log(`[${section}] ${JSON.stringify(figures)}`);
  };
}

/** A localnet workload produced once and then served as recorded history (see {@link recordLocalnetWorkload}). */
export interface LocalnetWorkload {
  net: Localnet;
  /** The demo activity's wallets. */
  wallets: string[];
  lastSlot: number;
  /** Slots that have a block (skipped slots left out). */
  blockSlots: number[];
  /** Figures for the report. */
  figures: { slots: number; blocks: number; skippedSlots: number; transactions: number; light: boolean; builtMs: number };
}

/**
 * Runs the demo activity (transfers, tokens, ZK Compression) on a Light-enabled localnet for `slots` slots closed
 * by hand, a few percent of the empty ones skipped (no block, like leader slots on a real cluster; seeded), then
 * stops the activity: the chain is then a fixed history that ingesters can read from `net.url`.
 */
export async function recordLocalnetWorkload(slots: number, seed: number): Promise<LocalnetWorkload> {
  const t0 = Date.now();
  const net = await createLocalnet({ port: 0, slotMs: 0, light: true });
  const demo = await startDemoWorkload(net.chain, { intervalMs: 1, wallets: 4 });
  const r = rng(seed);
  const first = net.chain.slot;
  let skipped = 0;
  while (net.chain.slot - first < slots) {
    await sleep(2);
    if (!net.chain.pendingTransactions.length && r() < 0.05) {
      net.chain.produceSlot({ skip: true });
      skipped++;
    } else net.chain.produceSlot();
  }
  await demo.stop();
  net.chain.produceSlot();
  const lastSlot = net.chain.slot;
  const blockSlots = net.chain.getBlocks(0, lastSlot);
  const transactions = blockSlots.reduce((s, b) => s + net.chain.getBlock(b)!.transactions.length, 0);
  return {
    net,
    wallets: demo.wallets,
    lastSlot,
    blockSlots,
    figures: { slots: lastSlot + 1, blocks: blockSlots.length, skippedSlots: skipped, transactions, light: demo.light !== null, builtMs: Date.now() - t0 },
  };
}
