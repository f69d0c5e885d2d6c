// What `npm start` started, recorded in a state file under the data directory so that a later start can stop what
// an earlier one left running (it was SIGKILLed, or its machine slept through its shutdown), and never touch a
// process it did not start. A process is known by its PID together with its start time (field 22 of
// /proc/<pid>/stat) and the boot it ran in: a PID the kernel has since given to another process does not match.
import { readdirSync, readFileSync, readlinkSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';

export interface ProcessRecord {
  /** What it is: `npm start`, `anvil`, `postgres`, `api`… */
  name: string;
  pid: number;
  /** Clock ticks since boot at which the process started (/proc/<pid>/stat, field 22). */
  startTime: number;
  /** /proc/sys/kernel/random/boot_id when it was recorded. */
  bootId: string;
  /** Its command line when recorded, for messages. */
  command: string;
  /** How it is asked to stop: PostgreSQL's fast shutdown is SIGINT. */
  stopSignal: NodeJS.Signals;
}

function read(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

const bootId = () => read('/proc/sys/kernel/random/boot_id')?.trim() ?? '';

/** State and start time of a process, or undefined when there is none with that PID. */
function stat(pid: number): { state: string; startTime: number } | undefined {
  const text = read(`/proc/${pid}/stat`);
  if (!text) return undefined;
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so the fields are counted after its last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '', startTime: Number(fields[19]) };
}

/** The command line of a process, as `ps` shows it. */
export function commandLine(pid: number): string {
  return (read(`/proc/${pid}/cmdline`) ?? '').split('\0').join(' ').trim();
}

/** Identifies a running process, for the state file; undefined when it has already gone. */
export function identify(name: string, pid: number, stopSignal: NodeJS.Signals = 'SIGTERM'): ProcessRecord | undefined {
  const found = stat(pid);
  if (!found) return undefined;
  return { name, pid, startTime: found.startTime, bootId: bootId(), command: commandLine(pid), stopSignal };
}

/** Whether the recorded process still runs: same boot, same PID, same start time, and not a zombie. */
export function isRunning(record: ProcessRecord): boolean {
  if (record.bootId !== bootId()) return false;
  const found = stat(record.pid);
  return found !== undefined && found.startTime === record.startTime && found.state !== 'Z' && found.state !== 'X';
}

function signal(record: ProcessRecord, name: NodeJS.Signals): void {
  try {
    process.kill(record.pid, name);
  } catch {
    // gone in between
  }
}

/** Stops a recorded process if it is still that process: its stop signal, then SIGKILL after `graceMs`. */
export async function stopRecorded(record: ProcessRecord, graceMs = 10_000): Promise<boolean> {
  if (!isRunning(record)) return false;
  signal(record, record.stopSignal);
  const deadline = Date.now() + graceMs;
  while (isRunning(record) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  if (isRunning(record)) signal(record, 'SIGKILL');
  while (isRunning(record) && Date.now() < deadline + 5_000) await new Promise((r) => setTimeout(r, 50));
  return true;
}

/** The state file of one data directory: the processes the running `npm start` started, in start order. */
export class StateFile {
  private records: ProcessRecord[];
  /** Where the running platform listens (`RunningPlatform` of apps/api/src/cli/runningPlatform.ts), once it does. */
  private platform: Record<string, unknown> | undefined;

  constructor(readonly file: string) {
    this.records = StateFile.load(file);
  }

  private static load(file: string): ProcessRecord[] {
    try {
      const parsed = JSON.parse(read(file) ?? '{}') as { processes?: ProcessRecord[] };
      return Array.isArray(parsed.processes) ? parsed.processes : [];
    } catch {
      return [];
    }
  }

  /** The recorded processes, in start order. */
  list(): readonly ProcessRecord[] {
    return this.records;
  }

  /** Records where the platform listens, for the admin CLI run beside it. */
  describe(platform: Record<string, unknown>): void {
    this.platform = platform;
    this.save();
  }

  /** Records a process under `name`, in place of an earlier one of that name. */
  record(name: string, pid: number, stopSignal: NodeJS.Signals = 'SIGTERM'): void {
    const record = identify(name, pid, stopSignal);
    this.records = this.records.filter((r) => r.name !== name);
    if (record) this.records.push(record);
    this.save();
  }

  forget(name: string): void {
    this.records = this.records.filter((r) => r.name !== name);
    this.save();
  }

  /** Sends every recorded process still running its stop signal, at once: the last resort as the process exits. */
  signalAll(except: number): void {
    for (const record of this.records)
      if (record.pid !== except && isRunning(record)) signal(record, record.stopSignal);
  }

  remove(): void {
    this.records = [];
    rmSync(this.file, { force: true });
  }

  private save(): void {
    const temporary = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify({ processes: this.records, platform: this.platform }, null, 2)}\n`);
    renameSync(temporary, this.file);
  }
}

/** Whether something listens on the loopback port (a listen on it fails with EADDRINUSE). */
export function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EADDRINUSE' ? resolve(true) : reject(error),
    );
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(false)));
  });
}

/** The process listening on a TCP port, found through /proc (only processes this user may inspect). */
export function listenerOf(port: number): { pid: number; command: string } | undefined {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of (read(table) ?? '').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is HEXIP:HEXPORT; state 0A is LISTEN; field 9 is the socket's inode.
      if (fields[3] === '0A' && Number.parseInt(fields[1]?.split(':')[1] ?? '', 16) === port)
        inodes.add(fields[9] ?? '');
    }
  }
  if (inodes.size === 0) return undefined;
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let link = '';
      try {
        link = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {}
      const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
      if (inode && inodes.has(inode)) return { pid: Number(pid), command: commandLine(Number(pid)) };
    }
  }
  return undefined;
}
