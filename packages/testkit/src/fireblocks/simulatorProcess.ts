import { startSimulatorProcess } from '../simulatorProcess.ts';
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
 * Starts simulatorMain.ts in a process of its own (see ../simulatorProcess.ts) with `options`. Benchmarks use it so
 * that the simulated workspace's signing, polling and webhook signatures do not run on the event loop of the
 * platform they measure; its faults and approvals stay with the in-process simulator the tests use.
 */
export async function startFireblocksSimulatorProcess(
  options: FireblocksSimulatorOptions,
): Promise<FireblocksSimulatorProcess> {
  const child = await startSimulatorProcess<
    FireblocksSimulatorOptions,
    Pick<FireblocksSimulatorProcess, 'url' | 'webhookPublicKeyPem' | 'user'>,
    Transactions
  >('packages/testkit/src/fireblocks/simulatorMain.ts', 'Fireblocks', options);
  return { ...child.ready, transactions: child.report, stop: child.stop };
}
