/**
 * A background worker's loop over a shared queue: `step` claims and does one piece of work (true when it found some,
 * so the next is claimed at once); when the queue is empty the loop sleeps `idleMs` or until `wake()`. `stop()`
 * aborts the signal `step` receives and resolves once the step in flight has ended.
 */
export interface WorkLoop {
  start(): void;
  stop(): Promise<void>;
  wake(): void;
}

export function createWorkLoop(step: (signal: AbortSignal) => Promise<boolean>, o: { idleMs: number; before?: () => Promise<void> }): WorkLoop {
  const ctl = new AbortController();
  let running: Promise<void> | null = null;
  let wakeUp: (() => void) | null = null;
  async function loop(): Promise<void> {
    await o.before?.();
    while (!ctl.signal.aborted) {
      const busy = await step(ctl.signal);
      if (!busy && !ctl.signal.aborted)
        await new Promise<void>((r) => {
          wakeUp = r;
          setTimeout(r, o.idleMs).unref();
        });
      wakeUp = null;
    }
  }
  return {
    start() {
      running ??= loop();
    },
    async stop() {
      ctl.abort();
      wakeUp?.();
      await running;
    },
    wake() {
      wakeUp?.();
    },
  };
}
