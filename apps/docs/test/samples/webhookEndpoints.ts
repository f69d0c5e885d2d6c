// Docs sample checks: webhook endpoints: creating one with curl, the receiver of transaction events that drops stale ones by `sequence`,
// and a receiver through a secret rotation. Both get real webhooks from the worker, signed with the endpoint's secret.
import assert from 'node:assert/strict';
import { apiKey } from '@mountain/api/testing';
import { freePort } from '@mountain/testkit/ports.ts';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import { type Delivery, startReceiver } from '@mountain/testkit/webhookReceiver.ts';
import * as webhooks from '@mountain/webhook-sdk';
import {
  answer,
  type Context,
  example,
  type Json,
  lines,
  ok,
  RECIPIENT,
  type Step,
  sameShape,
  signedHeaders,
  TRANSFER_ABI,
} from './context.ts';

/** The token's `transfer`, active again (the function-management samples deactivate it). */
async function transferFunction(c: Context): Promise<number> {
  if (c.values.webhookTransferFunction === undefined) {
    const res = await c.h.call('activate-contract-function', {
      headers: apiKey(c.key),
      body: { contractId: Number(c.env.MOUNTAIN_CONTRACT_ID), formattedAbiFunction: TRANSFER_ABI },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    c.values.webhookTransferFunction = res.body.contractActivatedFunction.id;
  }
  return c.values.webhookTransferFunction;
}

/** Executes a transfer of 1 token from the reader's wallet and waits for it to succeed; answers its id. */
async function transfer(c: Context, idempotencyKey: string): Promise<string> {
  const res = await c.h.call('execute-transaction', {
    headers: apiKey(c.key),
    body: { contractActivatedFunctionId: await transferFunction(c), functionArgs: [RECIPIENT, '1'], idempotencyKey },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const id = res.body.transaction.id as string;
  await waitFor(
    async () => {
      const now = await c.h.call('get-transaction', { headers: apiKey(c.key), query: { transactionId: id } });
      return now.body.transaction.status === 'succeeded' ? true : undefined;
    },
    30_000,
    `transaction ${id} to succeed`,
  );
  return id;
}

async function createEndpoint(c: Context, url: string, eventTypes: string[]): Promise<Json> {
  const res = await c.h.call('create-webhook-endpoint', { headers: apiKey(c.key), body: { url, eventTypes } });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.webhookEndpoint;
}

async function deleteEndpoint(c: Context, id: string): Promise<void> {
  const res = await c.h.call('delete-webhook-endpoint', { headers: apiKey(c.key), body: { id } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

/** The endpoint's attempts, once `count` of them are delivered. */
async function deliveredAttempts(c: Context, endpointId: string, count: number): Promise<Json[]> {
  return waitFor(
    async () => {
      const res = await c.h.call('get-webhook-attempts', { headers: apiKey(c.key), query: { endpointId } });
      const attempts = res.body.webhookAttempts as Json[];
      return attempts.filter((a) => a.outcome === 'delivered').length >= count ? attempts : undefined;
    },
    30_000,
    `${count} delivered attempts`,
  );
}

export const webhookEndpointSteps: Record<string, Step> = {
  'create-webhook-endpoint': {
    kind: 'run',
    env: async (c) => {
      c.values.receiverEndpointPort = await freePort();
      return { PORT: String(c.values.receiverEndpointPort) };
    },
    check: (out, c) => {
      const endpoint = answer(out, c, 'create-webhook-endpoint', 201).webhookEndpoint;
      assert.equal(endpoint.url, `http://127.0.0.1:${c.values.receiverEndpointPort}/`);
      assert.deepEqual(endpoint.eventTypes, ['transaction.broadcasted', 'transaction.succeeded']);
      assert.match(endpoint.secret, /^whsec_/);
      c.values.receiverEndpoint = endpoint;
    },
  },
  'webhook-endpoint-created': {
    kind: 'shape',
    check: (code, c) => {
      const real = c.values.receiverEndpoint;
      const shown = example(code, c, 'create-webhook-endpoint', 201, { webhookEndpoint: real }).webhookEndpoint;
      sameShape(real, shown);
      const { id: _id, projectId: _project, url, secret, createdAt: _c, updatedAt: _u, ...fields } = shown;
      for (const [k, v] of Object.entries(fields)) assert.deepEqual(v, real[k], k);
      assert.equal(url, real.url.replace(`:${c.values.receiverEndpointPort}/`, ':4000/'));
      assert.equal(secret.length, real.secret.length);
      assert.doesNotThrow(() => webhooks.sign({ id: 'x', body: '{}', secret }));
    },
  },
  'transaction-events-receiver': {
    kind: 'run',
    env: (c) => ({
      PORT: String(c.values.receiverEndpointPort),
      MOUNTAIN_ENDPOINT_SECRET: c.values.receiverEndpoint.secret,
    }),
    serve: async (c) => {
      const endpointId = c.values.receiverEndpoint.id as string;
      c.values.receivedTransaction = await transfer(c, 'webhook-endpoint-receiver');
      // Its two events delivered, then sent again by a replay, with their original ids and payloads: the receiver
      // has processed both sequences already, so each replayed webhook is stale and dropped (yet acknowledged).
      await deliveredAttempts(c, endpointId, 2);
      const replay = await c.h.call('replay-webhook-messages', {
        headers: apiKey(c.key),
        body: { endpointId, since: new Date(Date.now() - 3_600_000).toISOString(), onlyFailed: false },
      });
      assert.deepEqual(replay.body, { queuedCount: 2 });
      const attempts = await deliveredAttempts(c, endpointId, 4);
      assert.equal(attempts.length, 4, 'every attempt, the replayed ones too, was acknowledged');
      assert.equal(new Set(attempts.map((a) => a.webhookId)).size, 2, 'a replay keeps the webhook-id');
      await deleteEndpoint(c, endpointId);
    },
    check: (out, c) => {
      const id = c.values.receivedTransaction as string;
      const printed = lines(out);
      // Order is not promised: the broadcast may arrive after the success, and is then dropped as stale.
      assert.ok(
        printed.join('\n') === `${id} is broadcasted\n${id} is succeeded` ||
          printed.join('\n') === `${id} is succeeded`,
        out.stdout + out.stderr,
      );
    },
  },
  'rotation-receiver': {
    kind: 'run',
    env: async (c) => {
      const capture = await startReceiver();
      try {
        const endpoint = await createEndpoint(c, capture.url, ['transaction.succeeded']);
        const of = (id: string) => () =>
          capture.deliveries.find((d) => (JSON.parse(d.body) as Json).data.transaction.id === id);
        // One webhook before the rotation, signed with the old secret; one during the grace period, with both.
        const before = of(await transfer(c, 'rotation-before'));
        await capture.waitFor(() => before() !== undefined, 30_000, 'the webhook before the rotation');
        const rotated = await c.h.call('rotate-webhook-endpoint-secret', {
          headers: apiKey(c.key),
          body: { id: endpoint.id },
        });
        assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
        const during = of(await transfer(c, 'rotation-during'));
        await capture.waitFor(() => during() !== undefined, 30_000, 'the webhook of the grace period');
        await deleteEndpoint(c, endpoint.id);
        const old = before() as Delivery;
        const both = during() as Delivery;
        const as = (d: Delivery, signature = d.headers['webhook-signature']) => ({
          body: d.body,
          headers: { ...signedHeaders(d), 'webhook-signature': signature as string },
        });
        // One signature per secret: the old secret alone verifies one of the two entries, the new one the other.
        const signatures = both.headers['webhook-signature']?.split(' ') ?? [];
        assert.equal(signatures.length, 2, 'two signatures through the grace period');
        const newSecret = rotated.body.webhookEndpoint.secret as string;
        const verifies = async (signature: string, secret: string) =>
          webhooks.verify(both.body, as(both, signature).headers, secret).then(
            () => true,
            () => false,
          );
        const oldOnes = await Promise.all(signatures.map((s) => verifies(s, endpoint.secret)));
        const newOnes = await Promise.all(signatures.map((s) => verifies(s, newSecret)));
        assert.deepEqual([oldOnes.filter(Boolean).length, newOnes.filter(Boolean).length], [1, 1]);
        assert.notDeepEqual(oldOnes, newOnes);
        const oldSignature = signatures[oldOnes.indexOf(true)] as string;
        const newSignature = signatures[newOnes.indexOf(true)] as string;
        const stranger = await webhooks.sign({
          id: 'msg_stranger',
          body: both.body,
          secret: webhooks.generateSecret(),
        });
        return {
          MOUNTAIN_NEW_SECRET: newSecret,
          MOUNTAIN_OLD_SECRET: endpoint.secret,
          DELIVERIES: JSON.stringify([
            ['before the rotation', as(old)],
            ['through the grace period', as(both)],
            ['with the new signature alone', as(both, newSignature)],
            ['with the old signature alone', as(both, oldSignature)],
            ['tampered', { ...as(both), body: both.body.replace('"status":"succeeded"', '"status":"reverted"') }],
            ['signed with another secret', { body: both.body, headers: stranger }],
          ]),
        };
      } finally {
        await capture.close();
      }
    },
    driver: `import { receive } from './rotation-receiver.ts';
for (const [what, { body, headers }] of JSON.parse(process.env.DELIVERIES ?? '[]')) {
  try {
    const event = await receive(body, new Headers(headers));
    console.log(what, 'verified', event.type);
  } catch (error) {
    console.log(what, 'refused', (error as { code?: string }).code);
  }
}
`,
    check: (out) => {
      ok(out);
      assert.deepEqual(lines(out), [
        'before the rotation verified transaction.succeeded',
        'through the grace period verified transaction.succeeded',
        'with the new signature alone verified transaction.succeeded',
        'with the old signature alone verified transaction.succeeded',
        'tampered refused NO_MATCHING_SIGNATURE',
        'signed with another secret refused NO_MATCHING_SIGNATURE',
      ]);
    },
  },
};
