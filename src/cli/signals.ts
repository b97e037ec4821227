/**
 * Stop signals of the long-running commands. The first SIGINT/SIGTERM starts a graceful shutdown. A terminal's
 * Ctrl-C reaches every process of its group, and a runner in front of node (npm) forwards the same signal again a
 * moment later, so signals within `DUPLICATE_MS` of the first are taken for that same Ctrl-C. A later one is a
 * second Ctrl-C: the process exits at once (code 130), after saying what the graceful shutdown would have saved.
 */

const DUPLICATE_MS = 1000;

export interface StopSignal {
  /** Resolves at the first stop signal. */
  readonly stopped: Promise<NodeJS.Signals>;
  /** What a forced exit leaves undone, told on stderr if the user presses Ctrl-C again (updated as shutdown goes). */
  setUnsaved(what: string | null): void;
}

export function onStopSignal(name: string): StopSignal {
  let first = 0;
  let unsaved: string | null = null;
  let resolve!: (s: NodeJS.Signals) => void;
  const stopped = new Promise<NodeJS.Signals>((r) => (resolve = r));
  const handler = (sig: NodeJS.Signals) => {
    const now = Date.now();
    if (!first) {
      first = now;
      process.stderr.write(`${name}: ${sig}: shutting down${unsaved ? ' gracefully' : ''} (press Ctrl-C again to exit at once)\n`);
      resolve(sig);
      return;
    }
    if (now - first < DUPLICATE_MS) return;
    process.stderr.write(`${name}: second ${sig}: exiting at once${unsaved ? `; not saved: ${unsaved}` : ''}\n`);
    process.exit(130);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    stopped,
    setUnsaved(what) {
      unsaved = what;
    },
  };
}
