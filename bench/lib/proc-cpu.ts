/**
 * CPU time of processes on this machine, read from Linux's `/proc` (user + system clock ticks), so a benchmark can
 * say where the cores went during a run: its own child processes by pid, and the PostgreSQL server's processes by
 * their command line (`postgres: …`; meaningful when the server runs on this machine, as in the benchmarks here).
 * Elsewhere (`/proc` missing) every reading is empty and the callers print nothing.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of `/proc/<pid>/stat` (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU ticks so far of every process, by pid, with whether it is a PostgreSQL process. */
export type CpuReading = Map<number, { ticks: number; postgres: boolean }>;

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
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
      out.set(Number(d), { ticks, postgres: cmd.startsWith('postgres') });
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

/** CPU seconds between two readings of the processes `pids` (and of every PostgreSQL process with `postgres`). */
export function cpuSeconds(before: CpuReading, after: CpuReading, o: { pids?: readonly number[]; postgres?: boolean }): number {
  let ticks = 0;
  for (const [pid, a] of after) {
    if (!(o.pids?.includes(pid) || (o.postgres && a.postgres))) continue;
    ticks += a.ticks - (before.get(pid)?.ticks ?? 0);
  }
  return ticks / TICKS_PER_SECOND;
}
