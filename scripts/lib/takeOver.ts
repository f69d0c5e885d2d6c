// Before `npm start` starts anything: what an earlier start left running is stopped (only processes that start
// recorded, and only while they are still the same processes), and a port or a database held by a process it did
// not start is refused with a message that names it, never adopted.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { STATE_FILE } from '../../apps/api/src/cli/runningPlatform.ts';
import { commandLine, isRunning, listenerOf, portInUse, StateFile, stopRecorded } from './ownedProcesses.ts';

export const SUPERVISOR = 'npm start';

/** `npm start` cannot go on; the message says why and what to do. */
export class StartRefused extends Error {
  override name = 'StartRefused';
}

/**
 * Opens the state file of `dataDir` for this start: refuses when the `npm start` recorded there still runs, stops
 * every other process it recorded that still runs (its parts first, the database and the chain last), then records
 * this process.
 */
export async function takeOver(dataDir: string, log: (line: string) => void): Promise<StateFile> {
  const state = new StateFile(path.join(dataDir, STATE_FILE));
  const earlier = state.list().find((r) => r.name === SUPERVISOR);
  if (earlier && earlier.pid !== process.pid && isRunning(earlier)) {
    throw new StartRefused(
      `npm start is already running with the data directory ${dataDir} (pid ${earlier.pid}). Stop it first (Ctrl-C in its terminal, or kill ${earlier.pid}), or use another DATA_DIR.`,
    );
  }
  for (const record of [...state.list()].reverse()) {
    if (record.name === SUPERVISOR) continue;
    if (await stopRecorded(record)) {
      log(`Stopped ${record.name} (pid ${record.pid}), left running by an earlier npm start that did not stop it.`);
    }
    state.forget(record.name);
  }
  state.record(SUPERVISOR, process.pid);
  return state;
}

/** Refuses every port held by a process, with the process that holds it and the variable that moves it. */
export async function refuseBusyPorts(ports: { variable: string; port: number }[]): Promise<void> {
  const problems: string[] = [];
  for (const { variable, port } of ports) {
    const who = await holderOf(port);
    if (!who) continue;
    problems.push(
      `Port ${port} (${variable}) is already in use by ${who}. npm start did not start that process and leaves it alone: stop it, or choose another port, e.g. ${variable}=${port + 1} npm start`,
    );
  }
  if (problems.length) throw new StartRefused(problems.join('\n'));
}

/**
 * Who holds `port`, or undefined when it is free. A port held by no process is the one a takeover just stopped,
 * whose socket the kernel is still closing: it gets up to 2 s to come free (a process of another user, which this
 * one may not inspect, is named "another process" after them).
 */
async function holderOf(port: number): Promise<string | undefined> {
  for (let waited = 0; await portInUse(port); waited += 100) {
    const holder = listenerOf(port);
    if (holder) return `pid ${holder.pid} (${holder.command.slice(0, 120)})`;
    if (waited >= 2_000) return 'another process';
    await new Promise((r) => setTimeout(r, 100));
  }
  return undefined;
}

/** Refuses a PostgreSQL server already running on the data directory (started by `--role api` or the admin CLI). */
export function refuseRunningPostgres(postgresDir: string): void {
  let pid: number;
  try {
    pid = Number(readFileSync(path.join(postgresDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return;
  }
  const command = pid > 0 ? commandLine(pid) : '';
  if (!command.includes('postgres')) return; // a stale lock file: PostgreSQL replaces it
  throw new StartRefused(
    `PostgreSQL (pid ${pid}) is already running on ${postgresDir}, and npm start did not start it (\`npm run start:api\` or the admin CLI?). npm start leaves it alone: stop it first.`,
  );
}
