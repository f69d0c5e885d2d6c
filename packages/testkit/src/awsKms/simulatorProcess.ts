import { fork } from 'node:child_process';
import { bundledEntry } from '../devBundle.js';
import type { KmsFaultSettings } from './kmsFaults.ts';
import type { KmsSimulatorOptions } from './startKmsSimulator.ts';

/** An AWS KMS simulator in its own process, as the remote service it stands for: its CPU is not the caller's. */
export interface KmsSimulatorProcess {
  url: string;
  region: string;
  /** An access key registered at start. */
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** Requests carried out (answered 200), by action: `Sign` is how many signatures were made. */
  succeeded(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

/**
 * Starts simulatorMain.ts (bundled, see devBundle.js) and hands it `options` (plain data: no callbacks) and the
 * `faults` in force from the start (a Sign latency). Benchmarks use it so that the simulated service's SigV4 checks
 * and signatures do not run on the event loop of the platform they measure; switching faults while it runs, and the
 * key store, stay with the in-process simulator the tests use.
 */
export async function startKmsSimulatorProcess(
  options: KmsSimulatorOptions & { faults?: KmsFaultSettings } = {},
): Promise<KmsSimulatorProcess> {
  const [flag, entry] = await bundledEntry('packages/testkit/src/awsKms/simulatorMain.ts');
  const child = fork(entry as string, [], {
    execArgv: [flag as string],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const waiting = new Map<number, (succeeded: Record<string, number>) => void>();
  let next = 0;
  const ready = await new Promise<Omit<KmsSimulatorProcess, 'succeeded' | 'stop'>>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the KMS simulator process exited (${code}) before it was ready`)));
    child.on('message', (message: { ready?: never; id?: number; succeeded?: Record<string, number> }) => {
      if (message.ready) return resolve(message.ready);
      waiting.get(message.id as number)?.(message.succeeded ?? {});
      waiting.delete(message.id as number);
    });
    child.send(options);
  });
  return {
    ...ready,
    succeeded: () =>
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
