import { fork } from 'node:child_process';
import { bundledEntry } from '../devBundle.js';
import type { FireblocksSimulator, FireblocksSimulatorOptions } from './startFireblocksSimulator.ts';

/** A Fireblocks simulator in its own process, as the remote service it stands for: its CPU is not the caller's. */
export interface FireblocksSimulatorProcess {
  url: string;
  webhookPublicKeyPem: string;
  /** An API user registered at start. */
  user: { apiKey: string; privateKeyPem: string };
  pid: number;
  transactions(): Promise<ReturnType<FireblocksSimulator['transactions']>>;
  approve(txId: string): Promise<void>;
  reject(txId: string): Promise<void>;
  faults: {
    set(settings: Parameters<FireblocksSimulator['faults']['set']>[0]): Promise<void>;
    clear(): Promise<void>;
  };
  stop(): Promise<void>;
}

type Answer = { id: number; result?: unknown; error?: string };

/**
 * Starts simulatorMain.ts (bundled, see devBundle.js) and hands it `options` (plain data: no callbacks). Benchmarks
 * use it so that the simulated workspace's signing, polling and webhook signatures do not run on the event loop of
 * the platform they measure.
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
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let next = 0;
  const ready = await new Promise<{
    url: string;
    webhookPublicKeyPem: string;
    user: FireblocksSimulatorProcess['user'];
  }>((resolve, reject) => {
    child.once('exit', (code) =>
      reject(new Error(`the Fireblocks simulator process exited (${code}) before it was ready`)),
    );
    child.on('message', (message: { ready?: unknown } & Answer) => {
      if (message.ready) return resolve(message.ready as never);
      const waiter = pending.get(message.id);
      pending.delete(message.id);
      if (message.error !== undefined) waiter?.reject(new Error(message.error));
      else waiter?.resolve(message.result);
    });
    child.send(options);
  });
  const call = <T>(method: string, ...args: unknown[]) =>
    new Promise<T>((resolve, reject) => {
      const id = ++next;
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      child.send({ id, method, args });
    });
  return {
    ...ready,
    pid: child.pid as number,
    transactions: () => call('transactions'),
    approve: (txId) => call('approve', txId),
    reject: (txId) => call('reject', txId),
    faults: { set: (settings) => call('setFaults', settings), clear: () => call('clearFaults') },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.disconnect();
      await exited;
    },
  };
}
