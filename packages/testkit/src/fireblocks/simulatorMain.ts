// A Fireblocks simulator in a process of its own (see ../simulatorProcess.ts): it answers with its address, webhook
// key and an API user, then with its transactions whenever asked.
import { serveSimulatorProcess } from '../simulatorProcess.ts';
import { type FireblocksSimulatorOptions, startFireblocksSimulator } from './startFireblocksSimulator.ts';

serveSimulatorProcess(async (options: FireblocksSimulatorOptions) => {
  const sim = await startFireblocksSimulator(options);
  return {
    ready: { url: sim.url, webhookPublicKeyPem: sim.webhookPublicKeyPem, user: sim.createApiUser() },
    report: () => sim.transactions(),
    stop: () => sim.stop(),
  };
});
