import assert from 'node:assert/strict';
import { type DeliverySettings, defaultDeliverySettings } from '#api/delivery/settings.ts';
import { defaultEventNotifierSettings, type EventNotifierSettings } from '#api/eventNotifier/settings.ts';
import type { Logger } from '#api/runtime/logger.ts';
import { createSignerProvider } from '#api/wallets/signer.ts';
import { createWorker } from '#api/worker/worker.ts';
import { apiKey, type Harness } from '#api-testing/harness.ts';

/** A create-subscription body for ERC-20 `Transfer` events of `address` on chain 1337, from block 0. */
export const transferSubscription = (address: string) => ({
  subscriptionName: 'Transfers',
  networkId: 1337 as const,
  address,
  formattedAbiEvent: 'event Transfer(address indexed from, address indexed to, uint256 value)',
  initialBlockNumber: 0,
  scanInterval: 5,
});

/** Creates a subscription through the API with `key` and answers its id (failing the test on anything but 201). */
export async function subscribeTo(h: Harness, key: string, body: object): Promise<string> {
  const res = await h.call('create-subscription', { headers: apiKey(key), body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.eventNotifierSubscription.id as string;
}

/** The event notifier's settings and the delivery's, side by side (each half goes where it is read). */
export type TestSettings = EventNotifierSettings & DeliverySettings;

/** Test settings: short retry delays and timeouts so that retry paths finish in seconds. */
export const FAST_SETTINGS: TestSettings = Object.freeze({
  ...defaultEventNotifierSettings('test'),
  ...defaultDeliverySettings('loopback'),
  webhookBackoffBaseMs: 200,
  webhookBackoffMaxMs: 2_000,
  webhookTimeoutMs: 2_000,
});

/** A job worker on the harness database running the platform's task list with `settings`, logging to `log`. */
export async function startTestWorker(h: Harness, settings: TestSettings = FAST_SETTINGS, log?: Logger) {
  const stop = new AbortController();
  const worker = createWorker({
    deps: {
      db: h.db,
      chains: h.deps.chains,
      signers: createSignerProvider(h.keys),
      masterKey: h.masterKey,
      signal: stop.signal,
      eventNotifier: settings,
      delivery: settings,
      sweepIntervalMs: 1_000,
      ...(log ? { log } : {}),
    },
  });
  await worker.start();
  return {
    async stop() {
      stop.abort();
      await worker.stop();
    },
  };
}
