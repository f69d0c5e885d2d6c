import { startSimulatorProcess } from '../simulatorProcess.ts';
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
 * Starts simulatorMain.ts in a process of its own (see ../simulatorProcess.ts) with `options` and the `faults` in
 * force from the start (a Sign latency). Benchmarks use it so that the simulated service's SigV4 checks and
 * signatures do not run on the event loop of the platform they measure; switching faults while it runs, and the key
 * store, stay with the in-process simulator the tests use.
 */
export async function startKmsSimulatorProcess(
  options: KmsSimulatorOptions & { faults?: KmsFaultSettings } = {},
): Promise<KmsSimulatorProcess> {
  const child = await startSimulatorProcess<
    typeof options,
    Pick<KmsSimulatorProcess, 'url' | 'region' | 'credentials'>,
    Record<string, number>
  >('packages/testkit/src/awsKms/simulatorMain.ts', 'KMS', options);
  return { ...child.ready, succeeded: child.report, stop: child.stop };
}
