/**
 * CPU time of processes on this machine, read from Linux's `/proc` (user + system clock ticks), so a benchmark can
 * say where the cores went during a run: its own child processes by pid, and the PostgreSQL server's processes by
 * their command line (`postgres: …`; meaningful when the server runs on this machine, as in the benchmarks here).
 * Elsewhere (`/proc` missing) every reading is empty and the callers print nothing.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of `/proc/<pid>/stat` (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * CPU ticks so far of every process, by pid, with whether it is a PostgreSQL process; `reaped` is the CPU of its
 * children that have ended (PostgreSQL's postmaster collects that of every backend whose connection closed).
 */
export type CpuReading = Map<number, { ticks: number; reaped: number; postgres: boolean }>;

export function readCpu(): CpuReading {
  const out: CpuReading = new Map();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return out;
  }
  for (const d of pids) {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      // Fields after the command name (which may contain spaces): state is field 3, utime 14, stime 15.
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(f[11]) + Number(f[12]);
      const reaped = Number(f[13]) + Number(f[14]);
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
      // Backends and auxiliary processes retitle themselves `postgres: …`; the postmaster runs as `…/bin/postgres`.
      const postgres = cmd.startsWith('postgres') || cmd.slice(0, cmd.indexOf('\0')).endsWith('/postgres');
      out.set(Number(d), { ticks, reaped, postgres });
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

/**
 * CPU seconds between two readings of the processes `pids`, and with `postgres` of the PostgreSQL server: its
 * processes and the backends that ended between the readings (a client's connections, closed when it exits). The
 * postmaster collects an ended backend's whole CPU; for one already running at the first reading, what it had used
 * by then is taken off again, so that only the time between the readings counts.
 */
export function cpuSeconds(before: CpuReading, after: CpuReading, o: { pids?: readonly number[]; postgres?: boolean }): number {
  let ticks = 0;
  for (const [pid, a] of after) {
    const b = before.get(pid);
    if (o.pids?.includes(pid)) ticks += a.ticks - (b?.ticks ?? 0);
    else if (o.postgres && a.postgres) ticks += a.ticks - (b?.ticks ?? 0) + a.reaped - (b?.reaped ?? 0);
  }
  if (o.postgres) for (const [pid, b] of before) if (b.postgres && !after.has(pid)) ticks -= b.ticks;
  return ticks / TICKS_PER_SECOND;
}

/** CPU seconds used so far by this process's children that have ended (user + system). */
export function endedChildrenSeconds(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[13]) + Number(f[14])) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/**
 * CPU seconds of one process's threads, by thread name (`/proc/<pid>/task/<tid>/comm`: Node.js names its main thread
 * `MainThread` and a worker thread by its `name` option; V8's helpers are `V8Worker`, libuv's pool `libuv-worker`),
 * read every `everyMs` while the process runs: a thread's ticks are its last reading, so a thread that ends between
 * two readings loses at most one interval. `stop()` takes a last reading and returns the totals, largest first.
 */
export function sampleThreads(pid: number, everyMs = 50): { stop(): [string, number][] } {
  const last = new Map<string, { name: string; ticks: number }>();
  const read = () => {
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      return;
    }
    for (const tid of tids) {
      try {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
        last.set(tid, { name, ticks: Number(f[11]) + Number(f[12]) });
      } catch {
        // the thread ended meanwhile
      }
    }
  };
  read();
  const timer = setInterval(read, everyMs);
  return {
    stop() {
      clearInterval(timer);
      read();
      const byName = new Map<string, number>();
      for (const { name, ticks } of last.values()) byName.set(name, (byName.get(name) ?? 0) + ticks / TICKS_PER_SECOND);
      return [...byName].sort((a, b) => b[1] - a[1]);
    },
  };
}
