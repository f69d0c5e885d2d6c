/**
 * One place that knows how to stop everything a process started, in reverse order of start.
 * `signal` aborts when shutdown begins, so long-running loops can stop early.
 */
export interface Shutdown {
  readonly signal: AbortSignal;
  add(name: string, stop: () => Promise<void> | void): void;
  run(reason?: string): Promise<void>;
}

/** How long one part may take to stop before the shutdown goes on to the next. */
const STOP_TIMEOUT_MS = 15_000;

export function createShutdown(log: (message: string) => void = () => {}): Shutdown {
  const controller = new AbortController();
  const stops: { name: string; stop: () => Promise<void> | void }[] = [];
  let running: Promise<void> | undefined;
  return {
    signal: controller.signal,
    add(name, stop) {
      stops.push({ name, stop });
    },
    run(reason = 'shutdown') {
      running ??= (async () => {
        controller.abort(reason);
        for (const { name, stop } of stops.reverse()) {
          // A stop that never settles (a server that exited on its own before being asked to stop, whose exit
          // was then never reported) must not keep the rest running: it is given STOP_TIMEOUT_MS, then left.
          let timer: NodeJS.Timeout | undefined;
          const late = new Promise<'late'>((resolve) => {
            timer = setTimeout(() => resolve('late'), STOP_TIMEOUT_MS);
          });
          try {
            const outcome = await Promise.race([Promise.resolve(stop()).then(() => 'stopped' as const), late]);
            if (outcome === 'late') log(`stopping ${name} did not finish within ${STOP_TIMEOUT_MS / 1000} s; going on`);
          } catch (error) {
            log(`stopping ${name} failed: ${(error as Error).message}`);
          } finally {
            clearTimeout(timer);
          }
        }
      })();
      return running;
    },
  };
}

/**
 * Runs the shutdown on SIGINT, SIGTERM or SIGHUP (its terminal closed), then exits. A second signal exits at once.
 * A process started with an IPC channel (by `npm start`) also shuts down when that channel closes: its parent has
 * gone, even if it was SIGKILLed and could not stop it.
 */
export function exitOnSignals(shutdown: Shutdown): void {
  let signalled = false;
  if (process.channel) {
    process.on('disconnect', () => {
      if (signalled) return;
      signalled = true;
      shutdown.run('parent gone').then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (signalled) process.exit(130);
      signalled = true;
      shutdown.run(signal).then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
}
