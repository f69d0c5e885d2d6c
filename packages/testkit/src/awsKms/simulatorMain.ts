// An AWS KMS simulator in a process of its own (see simulatorProcess.ts): its options arrive as the first message on
// the IPC channel; it answers with its address, region and an access key, then with its counts of requests carried
// out whenever asked. It stops when the channel closes, so it never outlives the process that started it.
import type { KmsFaultSettings } from './kmsFaults.ts';
import { type KmsSimulatorOptions, startKmsSimulator } from './startKmsSimulator.ts';

process.once('message', async (options: KmsSimulatorOptions & { faults?: KmsFaultSettings }) => {
  const { faults, ...simulatorOptions } = options;
  const sim = await startKmsSimulator(simulatorOptions);
  if (faults) sim.faults.set(faults);
  const stop = async () => {
    await sim.stop().catch(() => undefined);
    process.exit(0);
  };
  process.once('disconnect', stop);
  process.once('SIGTERM', stop);
  process.on('message', (id: number) => process.send?.({ id, succeeded: { ...sim.succeeded } }));
  process.send?.({ ready: { url: sim.url, region: sim.region, credentials: sim.createUser() } });
});
