// The parts of `npm start` that run our own code (the API, the job worker, the docs server) each run in a child
// process: an exception that ends one of them ends only that process, which is logged and started again, while
// the others keep serving. Each child has an IPC channel to this process and ends when it closes, so the parts
// do not outlive `npm start` even when it is SIGKILLed.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface PartOptions {
  /** Prefixes its output lines: `[api] …`. */
  name: string;
  /** Arguments of `node`: the part's entry as a bundle (@mountain/testkit/devBundle.js `bundledEntry`), then its own. */
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The line it prints once it serves. */
  readyLine: string;
  log(line: string): void;
  /** Called with the PID of every process it starts (first start and restarts). */
  onSpawn(pid: number): void;
}

export interface Part {
  /** Resolves when the first process prints its ready line; rejects if that process ends before. */
  readonly ready: Promise<void>;
  pid(): number | undefined;
  /** SIGTERM (SIGKILL after 10 s); no restart afterwards. */
  stop(): Promise<void>;
}

/** Restarts wait 1 s, doubling after each crash in a row up to 30 s; a process that ran 60 s resets the delay. */
const FIRST_DELAY_MS = 1_000;
const MAX_DELAY_MS = 30_000;
const STABLE_MS = 60_000;

export function supervise(options: PartOptions): Part {
  const { name, log } = options;
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let stopping = false;
  let everReady = false;
  let crashesInARow = 0;
  let restartTimer: NodeJS.Timeout | undefined;
  let resolveReady: () => void = () => {};
  let rejectReady: (error: Error) => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  ready.catch(() => {}); // awaited by the caller; a later rejection must not count as unhandled

  const launch = () => {
    const startedAt = Date.now();
    const spawned = spawn(process.execPath, options.args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    child = spawned;
    exited = new Promise<void>((resolve) => spawned.once('exit', () => resolve()));
    if (spawned.pid) options.onSpawn(spawned.pid);
    for (const stream of [spawned.stdout, spawned.stderr]) {
      if (!stream) continue;
      createInterface({ input: stream }).on('line', (line) => {
        log(`[${name}] ${line}`);
        if (!everReady && line.includes(options.readyLine)) {
          everReady = true;
          resolveReady();
        }
      });
    }
    spawned.once('error', (error) => log(`[${name}] could not start: ${error.message}`));
    spawned.once('exit', (code, signal) => {
      if (stopping) return;
      const how = signal ? `signal ${signal}` : `code ${code}`;
      if (!everReady) {
        rejectReady(new Error(`${name} exited (${how}) before it was running; its output is above`));
        return;
      }
      crashesInARow = Date.now() - startedAt >= STABLE_MS ? 1 : crashesInARow + 1;
      const delay = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** (crashesInARow - 1));
      log(`[${name}] exited with ${how}; the other parts keep running; restarting it in ${delay / 1000} s`);
      restartTimer = setTimeout(launch, delay);
    });
  };
  launch();

  return {
    ready,
    pid: () => (child && child.exitCode === null && child.signalCode === null ? child.pid : undefined),
    async stop() {
      stopping = true;
      clearTimeout(restartTimer);
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      running.kill('SIGTERM');
      const timer = setTimeout(() => running.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
