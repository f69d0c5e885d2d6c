/**
 * One place that knows how to stop everything a process started, in reverse order of start.
 * `signal` aborts when shutdown begins, so long-running loops can stop early.
 */
export interface Shutdown {
  readonly signal: AbortSignal;
  add(name: string, stop: () => Promise<void> | void): void;
  run(reason?: string): Promise<void>;
}

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
          try {
            await stop();
          } catch (error) {
            log(`stopping ${name} failed: ${(error as Error).message}`);
          }
        }
      })();
      return running;
    },
  };
}

/** Runs the shutdown on SIGINT/SIGTERM, then exits. A second signal exits at once. */
export function exitOnSignals(shutdown: Shutdown): void {
  let signalled = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
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
