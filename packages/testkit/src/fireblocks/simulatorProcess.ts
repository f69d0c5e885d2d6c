import { fork } from 'node:child_process';
import { bundledEntry } from '../devBundle.js';
import type { FireblocksSimulator, FireblocksSimulatorOptions } from './startFireblocksSimulator.ts';

type Transactions = ReturnType<FireblocksSimulator['transactions']>;

/** A Fireblocks simulator in its own process, as the remote service it stands for: its CPU is not the caller's. */
export interface FireblocksSimulatorProcess {
  url: string;
  webhookPublicKeyPem: string;
  /** An API user registered at start. */
  user: { apiKey: string; privateKeyPem: string };
  transactions(): Promise<Transactions>;
  stop(): Promise<void>;
}

/**
 * Starts simulatorMain.ts (bundled, see devBundle.js) and hands it `options` (plain data: no callbacks). Benchmarks
 * use it so that the simulated workspace's signing, polling and webhook signatures do not run on the event loop of
 * the platform they measure; its faults and approvals stay with the in-process simulator the tests use.
 */
export async function startFireblocksSimulatorProcess(
  options: FireblocksSimulatorOptions,
): Promise<FireblocksSimulatorProcess> {
  const [flag, entry] = await bundledEntry('packages/testkit/src/fireblocks/simulatorMain.ts');
  const child = fork(entry as string, [], {
    execArgv: [flag as string],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const waiting = new Map<number, (transactions: Transactions) => void>();
  let next = 0;
  const ready = await new Promise<Omit<FireblocksSimulatorProcess, 'transactions' | 'stop'>>((resolve, reject) => {
    child.once('exit', (code) =>
      reject(new Error(`the Fireblocks simulator process exited (${code}) before it was ready`)),
    );
    child.on('message', (message: { ready?: never; id?: number; transactions?: Transactions }) => {
      if (message.ready) return resolve(message.ready);
      waiting.get(message.id as number)?.(message.transactions ?? []);
      waiting.delete(message.id as number);
    });
    child.send(options);
  });
  return {
    ...ready,
    transactions: () =>
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
