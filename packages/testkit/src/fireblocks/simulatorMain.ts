// A Fireblocks simulator in a process of its own (see simulatorProcess.ts): its options arrive as the first message
// on the IPC channel; it answers with its address and an API user, then with its transactions whenever asked. It
// stops when the channel closes, so it never outlives the process that started it.
import { type FireblocksSimulatorOptions, startFireblocksSimulator } from './startFireblocksSimulator.ts';

process.once('message', async (options: FireblocksSimulatorOptions) => {
  const sim = await startFireblocksSimulator(options);
  const stop = async () => {
    await sim.stop().catch(() => undefined);
    process.exit(0);
  };
  process.once('disconnect', stop);
  process.once('SIGTERM', stop);
  process.on('message', (id: number) => process.send?.({ id, transactions: sim.transactions() }));
  process.send?.({ ready: { url: sim.url, webhookPublicKeyPem: sim.webhookPublicKeyPem, user: sim.createApiUser() } });
});
