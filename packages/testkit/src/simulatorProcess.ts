// A simulated remote service (the Fireblocks or AWS KMS simulator) in a process of its own, as the service it
// stands for: its signing and checks do not run on the event loop of the platform a benchmark measures. The parent
// side starts the child and asks it for its report; the child side (`serveSimulatorProcess`, in the simulator's
// simulatorMain.ts) takes its options as the first message on the IPC channel, answers with what the parent needs to
// reach it, then with its report whenever asked, and stops when the channel closes: it never outlives its parent.
import { fork } from 'node:child_process';
import { bundledEntry } from './devBundle.js';

export interface SimulatorProcess<Ready, Report> {
  /** What the child answered once it listened (its address, a registered user…). */
  ready: Ready;
  /** The child's report, asked for now. */
  report(): Promise<Report>;
  stop(): Promise<void>;
}

/**
 * Starts `main` (a path from the repository's root, bundled: see devBundle.js) and hands it `options`, plain data
 * (no callbacks). `name` names the simulator in the error thrown when the child exits before it is ready.
 */
export async function startSimulatorProcess<Options, Ready, Report>(
  main: string,
  name: string,
  options: Options,
): Promise<SimulatorProcess<Ready, Report>> {
  const [flag, entry] = await bundledEntry(main);
  const child = fork(entry as string, [], {
    execArgv: [flag as string],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const waiting = new Map<number, (report: Report) => void>();
  let next = 0;
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('exit', (code) =>
      reject(new Error(`the ${name} simulator process exited (${code}) before it was ready`)),
    );
    child.on('message', (message: { ready?: Ready; id?: number; report?: Report }) => {
      if (message.ready) return resolve(message.ready);
      waiting.get(message.id as number)?.(message.report as Report);
      waiting.delete(message.id as number);
    });
    child.send(options as object);
  });
  return {
    ready,
    report: () =>
      new Promise((resolve) => {
        const id = ++next;
        waiting.set(id, resolve);
        child.send(id);
      }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.disconnect();
      await exited;
    },
  };
}

/** The child's side: `start` makes the simulator from the options received, and says what `ready` and `report` are. */
export function serveSimulatorProcess<Options, Ready, Report>(
  start: (options: Options) => Promise<{ ready: Ready; report(): Report; stop(): Promise<void> }>,
): void {
  process.once('message', async (options: Options) => {
    const sim = await start(options);
    const stop = async () => {
      await sim.stop().catch(() => undefined);
      process.exit(0);
    };
    process.once('disconnect', stop);
    process.once('SIGTERM', stop);
    process.on('message', (id: number) => process.send?.({ id, report: sim.report() }));
    process.send?.({ ready: sim.ready });
  });
}
