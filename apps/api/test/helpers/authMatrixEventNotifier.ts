// The authorization matrix's event notifier operations: what each is asked, and what a successful answer shows.
import assert from 'node:assert/strict';
import { incrementsSubscription } from '@mountain/testkit/testContract.ts';
import {
  assertNotFoundFromB,
  assertNothingOfA,
  ids,
  type MatrixOperation,
  ok,
  randomAddress,
} from './authMatrixChecks.ts';

let subscriptionDeletions = 0;

export const EVENT_NOTIFIER_MATRIX_OPERATIONS: Record<string, MatrixOperation> = {
  'create-subscription': {
    request: (_f, n) => ({
      body: incrementsSubscription(randomAddress(), { subscriptionName: `Matrix ${n}` }),
    }),
    check(res, f, actingIn) {
      ok(res, 201);
      assert.equal(res.body.eventNotifierSubscription.projectId, actingIn === 'A' ? f.projectA : f.projectB);
    },
  },
  'get-subscriptions': {
    request: () => ({}),
    check(res, f, actingIn) {
      ok(res, 200);
      const listed = res.body.eventNotifierSubscriptions as { id: string; projectId: number }[];
      if (actingIn === 'A') assert.ok(ids(listed).includes(f.subscriptionId));
      else assertNothingOfA(res.body, f);
    },
  },
  'update-subscription-webhook': {
    request: (f, n) => ({ body: { id: f.subscriptionId, webhookMaxRetries: n % 10 } }),
    check(res, f, actingIn) {
      if (actingIn !== 'A') return assertNotFoundFromB(res, f, f.subscriptionId);
      ok(res, 200);
      assert.equal(res.body.eventNotifierSubscription.id, f.subscriptionId);
    },
  },
  'update-subscription-scan': {
    request: (f) => ({ body: { id: f.subscriptionId, scanEnabled: true } }),
    check(res, f, actingIn) {
      if (actingIn !== 'A') return assertNotFoundFromB(res, f, f.subscriptionId);
      ok(res, 200);
      assert.equal(res.body.eventNotifierSubscription.scanEnabled, true);
    },
  },
  'update-subscription': {
    request: (f) => ({ body: { id: f.subscriptionId, subscriptionName: 'Renamed by the matrix' } }),
    check(res, f, actingIn) {
      if (actingIn !== 'A') return assertNotFoundFromB(res, f, f.subscriptionId);
      ok(res, 200);
      assert.equal(res.body.eventNotifierSubscription.subscriptionName, 'Renamed by the matrix');
    },
  },
  'rewind-subscription': {
    request: (f) => ({ body: { id: f.subscriptionId, fromBlock: 0 } }),
    check(res, f, actingIn) {
      if (actingIn !== 'A') return assertNotFoundFromB(res, f, f.subscriptionId);
      ok(res, 200);
      assert.equal(res.body.eventNotifierSubscription.id, f.subscriptionId);
    },
  },
  'delete-subscription': {
    request: (f) => ({
      body: { id: f.subscriptionsToDelete[subscriptionDeletions++ % f.subscriptionsToDelete.length] },
    }),
    check(res, _f, actingIn) {
      if (actingIn !== 'A') return assert.equal(res.status, 404, JSON.stringify(res.body));
      ok(res, 200);
      assert.match(res.body.message, /^Subscription [0-9a-f-]{36} is deleted$/);
    },
  },
  'get-records': {
    request: (f) => ({ body: { subscriptionId: f.subscriptionId } }),
    check(res, f, actingIn) {
      if (actingIn !== 'A') return assertNotFoundFromB(res, f, f.subscriptionId);
      ok(res, 200);
      assert.ok(Array.isArray(res.body.eventNotifierRecords));
    },
  },
  'resend-failed-webhook': {
    request: (f) => ({ body: { subscriptionId: f.subscriptionId, force: false } }),
    check(res, f, actingIn) {
      if (actingIn !== 'A') return assertNotFoundFromB(res, f, f.subscriptionId);
      ok(res, 200);
      assert.equal(res.body.record.subscriptionId, f.subscriptionId);
    },
  },
  'rotate-subscription-webhook-secret': {
    request: (f) => ({ body: { id: f.subscriptionId, gracePeriodSeconds: 60 } }),
    check(res, f, actingIn) {
      if (actingIn !== 'A') return assertNotFoundFromB(res, f, f.subscriptionId);
      ok(res, 200);
      assert.equal(res.body.eventNotifierSubscription.id, f.subscriptionId);
      assert.ok(res.body.previousWebhookSecretExpiresAt);
    },
  },
};
