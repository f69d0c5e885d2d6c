// An AWS KMS simulator in a process of its own (see ../simulatorProcess.ts), with the faults in force from its start
// (a Sign latency): it answers with its address, region and an access key, then with its counts of requests carried
// out whenever asked.
import { serveSimulatorProcess } from '../simulatorProcess.ts';
import type { KmsFaultSettings } from './kmsFaults.ts';
import { type KmsSimulatorOptions, startKmsSimulator } from './startKmsSimulator.ts';

serveSimulatorProcess(async ({ faults, ...options }: KmsSimulatorOptions & { faults?: KmsFaultSettings }) => {
  const sim = await startKmsSimulator(options);
  if (faults) sim.faults.set(faults);
  return {
    ready: { url: sim.url, region: sim.region, credentials: sim.createUser() },
    report: () => ({ ...sim.succeeded }),
    stop: () => sim.stop(),
  };
});
