// The machine's CPU time while a benchmark's work runs: every core's (all processes), and by process on Linux, so
// that a figure can be set against what the cores could give in the same run.
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';

/** Linux's clock ticks per second in /proc/<pid>/stat (USER_HZ, 100 on every Linux architecture Node runs on). */
const TICK_MS = 10;

/** Every core's CPU time so far (ms): what all processes used, and that plus idle. */
function machineCpu(): { busy: number; total: number } {
  let busy = 0;
  let total = 0;
  for (const { times } of cpus()) {
    const used = times.user + times.nice + times.sys + times.irq;
    busy += used;
    total += used + times.idle;
  }
  return { busy, total };
}

/** CPU time so far (ms) of each running process, with its kind (/proc; empty where there is none). */
function cpuByProcess(): Map<string, { kind: string; ms: number }> {
  const byPid = new Map<string, { kind: string; ms: number }>();
  let pids: string[] = [];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return byPid;
  }
  for (const pid of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ms = (Number(fields[11]) + Number(fields[12])) * TICK_MS; // utime + stime
    const kind =
      name === 'node'
        ? pid === String(process.pid)
          ? 'this process'
          : 'other node processes'
        : name === 'anvil' || name === 'postgres'
          ? name
          : 'the rest';
    byPid.set(pid, { kind, ms });
  }
  return byPid;
}

export interface CpuUse {
  /** CPU time (ms) every process used together. */
  busyMs: number;
  /** The share of every core's time that was busy. */
  busyShare: number;
  /** CPU time (ms) by kind of process: this process, other node processes, anvil, postgres, the rest. */
  byProcess: Map<string, number>;
}

/** The machine's CPU that `work` takes (ms, all processes), the share of the cores it kept busy, and by process. */
export async function measuredCpu<T>(work: () => Promise<T>): Promise<{ result: T } & CpuUse> {
  const before = machineCpu();
  const processesBefore = cpuByProcess();
  const result = await work();
  const processesAfter = cpuByProcess();
  const after = machineCpu();
  const busyMs = after.busy - before.busy;
  // What the processes still running used meanwhile (those that ended took their counts with them).
  const byProcess = new Map<string, number>();
  for (const [pid, { kind, ms }] of processesAfter) {
    byProcess.set(kind, (byProcess.get(kind) ?? 0) + ms - (processesBefore.get(pid)?.ms ?? 0));
  }
  return { result, busyMs, busyShare: busyMs / Math.max(1, after.total - before.total), byProcess };
}

/** The most units of work a second every core of this machine could do, at `machineMsPerUnit` of CPU each. */
export function mostPerSecond(machineMsPerUnit: number): number {
  return (cpus().length * 1000) / machineMsPerUnit;
}

/** "this process 3.03, anvil 0.98, …": each kind's CPU ms per unit of work, the largest first. */
export function perUnitByProcess(byProcess: Map<string, number>, units: number): string {
  return [...byProcess]
    .filter(([, ms]) => ms > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, ms]) => `${kind} ${(ms / units).toFixed(2)}`)
    .join(', ');
}
