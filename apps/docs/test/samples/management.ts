// Docs sample checks: managing subscriptions and functions: listing, resending, updating, deactivating.
import assert from 'node:assert/strict';
import { apiKey } from '@mountain/api/testing';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import { type Receiver, startReceiver } from '@mountain/testkit/webhookReceiver.ts';
import { parseAbiItem } from 'viem';
import {
  answer,
  type Context,
  example,
  failingSubscription,
  type Json,
  RECIPIENT,
  records,
  type Step,
} from './context.ts';
import { allRecords, recordsThroughHead } from './watching.ts';

/** The watching page's subscription, which the update and rewind samples change. */
const filteredEnv = (c: Context) => ({ MOUNTAIN_SUBSCRIPTION_ID: c.values.filtered.id as string });

/** The webhook-ids the receiver of the watching page's subscription got, in order. */
const deliveredIds = (c: Context) =>
  (c.values.filteredReceiver as Receiver).deliveries.map((d) => d.headers['webhook-id'] as string);

const valuesOf = (records: Json[]) => records.map((r) => r.decodedLog.value as string).sort();

export const managementSteps: Record<string, Step> = {
  'get-subscriptions': {
    kind: 'run',
    check: (out, c) => {
      const body = answer(out, c, 'get-subscriptions', 200);
      const listed = body.eventNotifierSubscriptions.find((s: { id: string }) => s.id === c.values.subscription.id);
      assert.equal(listed.scanStatus === 'idle' || listed.scanStatus === 'scanning', true);
      assert.ok(listed.lastScannedBlock > 0);
      assert.match(listed.webhookSecret, /^whsec_.{4}\*{16}$/);
    },
  },
  'resend-failed': {
    kind: 'run',
    env: async (c) => ({ MOUNTAIN_SUBSCRIPTION_ID: await failingSubscription(c) }),
    check: async (out, c) => {
      const body = answer(out, c, 'resend-failed-webhook', 200);
      assert.equal(body.record.forced, false);
      assert.equal(body.record.requeuedCount, 6);
      c.values.failingSubscription = body.record.subscriptionId;
      // Each gets its one more attempt, which the receiver fails again.
      await waitFor(async () => {
        const all = await records(c, body.record.subscriptionId);
        return all.every((r) => r.status === 'failed' && r.notificationFailureCount === 2) ? true : undefined;
      });
    },
  },
  'management-get-records': {
    kind: 'run',
    env: (c) => ({ MOUNTAIN_SUBSCRIPTION_ID: c.values.failingSubscription }),
    check: (out, c) => {
      const body = answer(out, c, 'get-records', 200);
      for (const r of body.eventNotifierRecords) {
        assert.equal(r.status, 'failed');
        assert.equal(r.notificationFailureCount, 2);
        assert.equal(r.lastNotificationFailureMessage, 'HTTP 500 Internal Server Error');
      }
    },
  },
  'resend-forced': {
    kind: 'run',
    env: async (c) => {
      await c.h.call('update-subscription-webhook', {
        headers: apiKey(c.key),
        body: { id: c.values.failingSubscription, webhookEnabled: false },
      });
      (c.values.failingReceiver as Receiver).respondWith(() => ({ status: 200 }));
      return { MOUNTAIN_SUBSCRIPTION_ID: c.values.failingSubscription };
    },
    check: async (out, c) => {
      const body = answer(out, c, 'resend-failed-webhook', 200);
      assert.equal(body.record.forced, true);
      assert.equal(body.record.requeuedCount, 6);
      c.values.resent = body;
      // Sent although the webhook stays disabled.
      await waitFor(async () =>
        (await records(c, c.values.failingSubscription)).every((r) => r.status === 'notified') ? true : undefined,
      );
    },
  },
  'resend-summary': {
    kind: 'shape',
    check: (code, c) => {
      const shown = example(code, c, 'resend-failed-webhook', 200, c.values.resent);
      assert.equal(shown.record.requeuedCount, shown.record.recordIds.length);
    },
  },
  'delete-subscription': {
    kind: 'run',
    // The failing receiver's subscription, done with once its records were resent.
    env: (c) => ({ MOUNTAIN_SUBSCRIPTION_ID: c.values.failingSubscription }),
    check: async (out, c) => {
      const body = answer(out, c, 'delete-subscription', 200);
      assert.equal(body.message, `Subscription ${c.values.failingSubscription} is deleted`);
      const gone = await c.h.call('get-records', {
        headers: apiKey(c.key),
        body: { subscriptionId: c.values.failingSubscription },
      });
      assert.equal(gone.status, 404);
      const listed = await c.h.call('get-subscriptions', { headers: apiKey(c.key), query: { perPage: '100' } });
      const ids = (listed.body.eventNotifierSubscriptions as { id: string }[]).map((s) => s.id);
      assert.ok(!ids.includes(c.values.failingSubscription) && ids.includes(c.values.subscription.id));
    },
  },
  'update-webhook': {
    kind: 'run',
    check: (out, c) => {
      const body = answer(out, c, 'update-subscription-webhook', 200);
      const s = body.eventNotifierSubscription;
      assert.equal(s.id, c.values.subscription.id);
      assert.equal(s.webhookURL, 'https://api.example.com/webhooks/mountain');
      assert.equal(s.webhookMaxRetries, 8);
      assert.equal(s.webhookEnabled, true);
      assert.equal(s.webhookSecret.slice(0, 10), c.values.subscription.webhookSecret.slice(0, 10));
    },
  },
  'deactivate-function': {
    kind: 'run',
    check: (out, c) => {
      const body = answer(out, c, 'deactivate-contract-function', 201);
      c.values.deactivated = body;
    },
  },
  'function-deactivated': {
    kind: 'shape',
    check: (code, c) => assert.deepEqual(JSON.parse(code), c.values.deactivated),
  },
  'abi-event': {
    kind: 'shape',
    check: (code, c) => {
      assert.equal(parseAbiItem(code.trim()).type, 'event');
      assert.equal(code.trim(), c.values.subscription.formattedAbiEvent);
    },
  },
  // Last of the page's steps: the 700 transfer below is a seventh Transfer of the token, which the failing
  // receiver's subscription above does not expect.
  'update-subscription': {
    kind: 'run',
    env: filteredEnv,
    // The reader has pointed the subscription's webhook at a receiver, which got its two records.
    prepare: async (c) => {
      const receiver = await startReceiver();
      c.values.filteredReceiver = receiver;
      const res = await c.h.call('update-subscription-webhook', {
        headers: apiKey(c.key),
        body: { id: c.values.filtered.id, webhookURL: receiver.url },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      await recordsThroughHead(c, c.values.filtered.id, (all) => all.every((r) => r.status === 'notified'));
      assert.equal(deliveredIds(c).length, 2);
    },
    check: async (out, c) => {
      const s = answer(out, c, 'update-subscription', 200).eventNotifierSubscription;
      assert.equal(s.id, c.values.filtered.id);
      assert.equal(s.subscriptionName, 'transfers-from-500');
      assert.deepEqual(s.conditions, [{ field: 'value', op: 'gte', value: '500' }]);
      // What the update does not name stays.
      for (const k of [
        'address',
        'formattedAbiEvent',
        'addresses',
        'formattedAbiEvents',
        'filters',
        'initialBlockNumber',
      ]) {
        assert.deepEqual(s[k], c.values.filtered[k], k);
      }
      assert.equal(s.scanInterval, 5);
      assert.equal(s.webhookURL, (c.values.filteredReceiver as Receiver).url);
      // From the next scan: a transfer of 700 mined now is recorded; the 500 one, in a block scanned before, is not.
      await c.token.send(RECIPIENT, 700n);
      const found = await recordsThroughHead(
        c,
        s.id,
        (all) => all.length === 3 && all.every((r) => r.status === 'notified'),
      );
      assert.deepEqual(valuesOf(found), ['1000', '1000', '700']);
      for (const r of c.values.filteredRecords as Json[])
        assert.ok(
          found.some((f) => f.id === r.id),
          'kept',
        );
      c.values.filteredRecords = found;
    },
  },
  'rewind-subscription': {
    kind: 'run',
    env: filteredEnv,
    check: async (out, c) => {
      const body = answer(out, c, 'rewind-subscription', 200);
      const s = body.eventNotifierSubscription;
      assert.equal(s.id, c.values.filtered.id);
      assert.equal(s.initialBlockNumber, 0);
      if (body.redeliveredCount === null) {
        assert.equal(s.rewindFromBlock, 0, 'waits for the scan that was running');
      } else {
        assert.equal(body.redeliveredCount, 0);
        assert.equal(s.rewindFromBlock, null);
        assert.equal(s.lastScannedBlock, null, 'the next scan starts at block 0');
      }
      // Scanned again with the new condition: the 500 transfer is a new record, delivered; the others stay
      // as they were, and none is sent twice.
      const before = c.values.filteredRecords as Json[];
      const found = await recordsThroughHead(
        c,
        s.id,
        (all) => all.length === 4 && all.every((r) => r.status === 'notified'),
      );
      assert.deepEqual(valuesOf(found), ['1000', '1000', '500', '700']);
      for (const r of before) {
        const kept = found.find((f) => f.id === r.id);
        assert.ok(kept, 'the same record, under its id');
        assert.equal(kept.statusChangedAt, r.statusChangedAt, 'not sent again');
      }
      await (c.values.filteredReceiver as Receiver).waitFor(() => deliveredIds(c).length >= 4);
      assert.deepEqual([...deliveredIds(c)].sort(), found.map((r) => r.id).sort(), 'each record sent once');
      c.values.filteredRecords = found;
    },
  },
  'rewind-redeliver': {
    kind: 'run',
    env: filteredEnv,
    check: async (out, c) => {
      const body = answer(out, c, 'rewind-subscription', 200);
      const s = body.eventNotifierSubscription;
      if (body.redeliveredCount === null) assert.equal(s.rewindFromBlock, 0);
      else assert.equal(body.redeliveredCount, 4);
      // Every record from block 0 on is sent again, under the same webhook-id; no record is added.
      const receiver = c.values.filteredReceiver as Receiver;
      await receiver.waitFor(() => deliveredIds(c).length >= 8, 30_000, 'every record a second time');
      const ids = c.values.filteredRecords.map((r: Json) => r.id).sort();
      assert.deepEqual(deliveredIds(c).slice(4).sort(), ids);
      const found = await recordsThroughHead(c, s.id, (all) => all.every((r) => r.status === 'notified'));
      assert.deepEqual(found.map((r) => r.id).sort(), ids);
      assert.equal((await allRecords(c, s.id)).length, 4);
    },
  },
};
