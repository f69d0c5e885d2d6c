// Docs sample checks: managing subscriptions and functions: listing, resending, updating, deactivating.
import assert from 'node:assert/strict';
import { apiKey } from '@mountain/api/testing';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import type { Receiver } from '@mountain/testkit/webhookReceiver.ts';
import { parseAbiItem } from 'viem';
import { answer, example, failingSubscription, records, type Step } from './context.ts';

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
};
