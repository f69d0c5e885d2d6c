// A Fireblocks simulator in a process of its own (see simulatorProcess.ts): its options arrive as the first message
// on the IPC channel; it answers with its address and an API user, then runs the parent's calls. It stops when the
// channel closes, so it never outlives the process that started it.
import { type FireblocksSimulatorOptions, startFireblocksSimulator } from './startFireblocksSimulator.ts';

type Call = {
  id: number;
  method: 'transactions' | 'approve' | 'reject' | 'setFaults' | 'clearFaults';
  args: unknown[];
};

const send = (message: unknown) => process.send?.(message);

process.once('message', async (options: FireblocksSimulatorOptions) => {
  const sim = await startFireblocksSimulator(options);
  const user = sim.createApiUser();
  const stop = async () => {
    await sim.stop().catch(() => undefined);
    process.exit(0);
  };
  process.once('disconnect', stop);
  process.once('SIGTERM', stop);
  process.on('message', (call: Call) => {
    try {
      const [txId] = call.args as [string];
      const result =
        call.method === 'transactions'
          ? sim.transactions()
          : call.method === 'approve'
            ? sim.approve(txId)
            : call.method === 'reject'
              ? sim.reject(txId)
              : call.method === 'setFaults'
                ? sim.faults.set(call.args[0] as Parameters<typeof sim.faults.set>[0])
                : sim.faults.clear();
      send({ id: call.id, result: result ?? null });
    } catch (error) {
      send({ id: call.id, error: error instanceof Error ? error.message : String(error) });
    }
  });
  send({ ready: { url: sim.url, webhookPublicKeyPem: sim.webhookPublicKeyPem, user } });
});
