// Docs sample checks: events: subscriptions, records, the webhook payload and the webhook SDK's receivers.
import assert from 'node:assert/strict';
import { freePort } from '@mountain/testkit/ports.ts';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import type { Delivery } from '@mountain/testkit/webhookReceiver.ts';
import * as webhooks from '@mountain/webhook-sdk';
import {
  answer,
  deliveryEnv,
  lines,
  ok,
  postDeliveries,
  printedTransfer,
  RECIPIENT,
  records,
  type Step,
  sameShape,
  signedHeaders,
} from './context.ts';

export const eventSteps: Record<string, Step> = {
  'create-subscription': {
    kind: 'run',
    check: (out, c) => {
      const body = answer(out, c, 'create-subscription', 201);
      const s = body.eventNotifierSubscription;
      // No webhook yet: the records wait, and nothing is sent before the receiver listens.
      assert.equal(s.webhookURL, null);
      assert.equal(s.webhookEnabled, false);
      c.values.subscription = s;
      c.env.MOUNTAIN_SUBSCRIPTION_ID = s.id;
      c.env.MOUNTAIN_WEBHOOK_SECRET = s.webhookSecret;
    },
  },
  'subscription-created': {
    kind: 'shape',
    check: (code, c) => {
      const example = JSON.parse(code).eventNotifierSubscription;
      sameShape(example, c.values.subscription);
      const { id: _id, webhookSecret, ...fields } = example;
      for (const [k, v] of Object.entries(fields)) assert.deepEqual(v, c.values.subscription[k], k);
      assert.equal(webhookSecret.length, c.values.subscription.webhookSecret.length);
      assert.doesNotThrow(() => webhooks.sign({ id: 'x', body: '{}', secret: webhookSecret }));
    },
  },
  'events-receiver': {
    kind: 'run',
    env: async (c) => {
      c.values.receiverPort = await freePort();
      return { PORT: String(c.values.receiverPort) };
    },
    // The next step of the page, run while the receiver listens: it points the subscription's webhook at it.
    during: 'subscription-webhook-on',
    serve: async (c, port) => {
      // The worker delivers the token's Transfer events, each on its first attempt.
      await waitFor(
        async () =>
          (await records(c, c.env.MOUNTAIN_SUBSCRIPTION_ID as string)).every((r) => r.status === 'notified')
            ? true
            : undefined,
        30_000,
        'every record to be delivered',
      );
      const bad = await fetch(`http://127.0.0.1:${port}/`, {
        method: 'POST',
        headers: signedHeaders(c.delivery as Delivery),
        body: c.delivery?.body as string,
      });
      assert.equal(bad.status, 400, 'a delivery signed with another subscription’s secret is refused');
      const all = await records(c, c.env.MOUNTAIN_SUBSCRIPTION_ID as string);
      assert.deepEqual(
        all.filter((r) => r.notificationFailureCount > 0),
        [],
        'no record failed: the receiver listened before the webhook was on',
      );
    },
    check: (out) => {
      assert.match(
        out.stdout,
        /Transfer \{\n\s*from: '0x[0-9a-fA-F]{40}',\n\s*to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',\n\s*value: '1000'\n\}/,
      );
    },
  },
  'subscription-webhook-on': {
    kind: 'run',
    env: (c) => ({ PORT: String(c.values.receiverPort) }),
    check: (out, c) => {
      const s = answer(out, c, 'update-subscription-webhook', 200).eventNotifierSubscription;
      assert.equal(s.id, c.values.subscription.id);
      assert.equal(s.webhookURL, `http://127.0.0.1:${c.values.receiverPort}/`);
      assert.equal(s.webhookEnabled, true);
    },
  },
  'events-get-records': {
    kind: 'run',
    check: (out, c) => {
      const body = answer(out, c, 'get-records', 200);
      const found = body.eventNotifierRecords as { status: string; decodedLog: { value: string } }[];
      // The mint, the wallet's two fundings, the setup transfer that succeeded and the two sample transfers.
      assert.equal(found.length, 6);
      assert.ok(found.every((r) => r.status === 'notified'));
      assert.ok(found.some((r) => r.decodedLog.value === '1000'));
    },
  },
  'webhook-payload': {
    kind: 'shape',
    check: (code, c) => {
      const real = JSON.parse(c.delivery?.body as string);
      const example = JSON.parse(code);
      sameShape(example, real);
      sameShape(real, example);
      assert.equal(example.data.recordId, example.data.recordId.toLowerCase());
      assert.equal(real.data.recordId, c.delivery?.headers['webhook-id']);
      assert.deepEqual(example.data.network, real.data.network);
      assert.deepEqual(example.data.event, real.data.event);
    },
  },
  'decoded-log': {
    kind: 'shape',
    check: (code, c) => {
      const real = JSON.parse(c.delivery?.body as string).data.decodedLog;
      assert.deepEqual(Object.keys(JSON.parse(code)).sort(), Object.keys(real).sort());
      sameShape(JSON.parse(code), real);
    },
  },
  verify: {
    kind: 'run',
    concurrent: true,
    env: deliveryEnv,
    driver: `import { readWebhook } from './verify.ts';
const { body, headers } = JSON.parse(process.env.DELIVERY ?? '');
const event = await readWebhook(body, headers);
console.log('returned', event?.data.recordId);
console.log('tampered returns', await readWebhook(body.replace('"value":"1000"', '"value":"9000"'), headers));
console.log('without signature returns', await readWebhook(new TextEncoder().encode(body), { ...headers, 'webhook-signature': undefined }));
`,
    check: (out, c) => {
      ok(out);
      const id = c.delivery?.headers['webhook-id'];
      assert.match(lines(out)[0] ?? '', /^event_notifier\.event Transfer \{/);
      assert.ok(out.stdout.includes(`returned ${id}`));
      assert.ok(out.stdout.includes('tampered returns undefined\nwithout signature returns undefined'));
      assert.deepEqual(out.stderr.trim().split('\n'), [
        'rejected webhook: NO_MATCHING_SIGNATURE',
        'rejected webhook: MISSING_HEADER',
      ]);
    },
  },
  'is-valid-webhook': {
    kind: 'run',
    concurrent: true,
    env: deliveryEnv,
    driver: `import { isValidWebhook } from './is-valid-webhook.ts';
const { body, headers } = JSON.parse(process.env.DELIVERY ?? '');
const secret = process.env.MOUNTAIN_WEBHOOK_SECRET ?? '';
console.log(isValidWebhook(body, headers, secret));
console.log(isValidWebhook(body.replace('"value":"1000"', '"value":"9000"'), headers, secret));
console.log(isValidWebhook(body, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 600) }, secret));
console.log(isValidWebhook(body, { ...headers, 'webhook-signature': 'v1,AAAA ' + headers['webhook-signature'] }, secret));
`,
    check: (out) => {
      ok(out);
      assert.deepEqual(lines(out), ['true', 'false', 'false', 'true']);
    },
  },
  'on-event': {
    kind: 'run',
    concurrent: true,
    env: deliveryEnv,
    driver: `import { onEvent } from './on-event.ts';
const event = JSON.parse(JSON.parse(process.env.DELIVERY ?? '').body);
const enqueue = async (job: string, payload: unknown) => console.log('enqueued', job, (payload as { recordId: string }).recordId);
await onEvent(event, enqueue);
await onEvent({ ...event, type: 'something.new' }, enqueue);
console.log('done');
`,
    check: (out, c) => {
      ok(out);
      assert.deepEqual(lines(out), [`enqueued transfer ${c.delivery?.headers['webhook-id']}`, 'done']);
    },
  },
  'on-transfer': {
    kind: 'run',
    concurrent: true,
    env: deliveryEnv,
    driver: `import { onTransfer } from './on-transfer.ts';
onTransfer(JSON.parse(JSON.parse(process.env.DELIVERY ?? '').body));
`,
    check: (out, c) => {
      ok(out);
      const data = JSON.parse(c.delivery?.body as string).data;
      assert.deepEqual(lines(out), [`${data.decodedLog.from} -> ${RECIPIENT}: 1000 at block ${data.blockNumber}`]);
    },
  },
  'node-http': {
    kind: 'run',
    concurrent: true,
    env: (c) => ({ MOUNTAIN_WEBHOOK_SECRET: c.delivery?.secret ?? '' }),
    serve: async (c, port) => {
      await postDeliveries(c, `http://127.0.0.1:${port}/webhooks/mountain`);
      assert.equal((await fetch(`http://127.0.0.1:${port}/elsewhere`)).status, 404);
    },
    check: printedTransfer,
  },
  express: {
    kind: 'run',
    concurrent: true,
    env: (c) => ({ MOUNTAIN_WEBHOOK_SECRET: c.delivery?.secret ?? '' }),
    serve: (c, port) => postDeliveries(c, `http://127.0.0.1:${port}/webhooks/mountain`),
    check: printedTransfer,
  },
  fastify: {
    kind: 'run',
    concurrent: true,
    env: (c) => ({ MOUNTAIN_WEBHOOK_SECRET: c.delivery?.secret ?? '' }),
    serve: (c, port) => postDeliveries(c, `http://127.0.0.1:${port}/webhooks/mountain`),
    check: printedTransfer,
  },
  'fetch-handler': {
    kind: 'run',
    concurrent: true,
    env: deliveryEnv,
    driver: `import { POST } from './fetch-handler.ts';
const { body, headers } = JSON.parse(process.env.DELIVERY ?? '');
const post = (b: string) => POST(new Request('http://127.0.0.1/webhooks/mountain', { method: 'POST', headers, body: b }));
console.log('answered', (await post(body)).status);
console.log('tampered answered', (await post(body.replace('"value":"1000"', '"value":"9000"'))).status);
`,
    check: (out, c) => {
      ok(out);
      printedTransfer(out, c);
      assert.ok(out.stdout.includes('answered 204\ntampered answered 400'));
    },
  },
  'abi-from-json': {
    kind: 'run',
    concurrent: true,
    check: (out) => {
      ok(out);
      assert.deepEqual(JSON.parse(out.stdout), [
        'function transfer(address to, uint256 amount) returns (bool)',
        'error InsufficientBalance(uint256 available, uint256 required)',
      ]);
    },
  },
  'event-from-json-abi': {
    kind: 'run',
    concurrent: true,
    check: (out) => {
      ok(out);
      assert.deepEqual(lines(out), ['event Transfer(address indexed from, address indexed to, uint256 value)']);
    },
  },
  'test-endpoint': {
    kind: 'run',
    concurrent: true,
    check: (out) => {
      ok(out);
      assert.deepEqual(lines(out), ['handled test-1 event_notifier.event', '204']);
    },
  },
  'dedupe-sql': {
    kind: 'run',
    // The statements ran with the webhook-ids msg_1, msg_1, msg_2: only the repeated one inserts nothing.
    check: (out) => assert.deepEqual(JSON.parse(out.stdout), [1, 0, 1]),
  },
};
