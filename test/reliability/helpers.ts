/**
 * Helpers the reliability suites share: a seeded RNG (kill and fault schedules are reproducible from a seed),
 * waiting for a condition with the recent child output in the error, a child's exit, and a section reporter.
 */
import type { ChildProcess } from 'node:child_process';
import { record } from './report.js';

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export { rng } from '../helpers/rng.js';

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
