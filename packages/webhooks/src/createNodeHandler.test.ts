import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createNodeHandler } from './createNodeHandler.ts';
import { InvalidSecretError, WebhookHandlerError } from './errors.ts';
import { listenNode, SECRET, sampleEvent, signedHeaders } from './testing.ts';
import { describeHandlerContract, post } from './testingHandlers.ts';

describeHandlerContract('createNodeHandler', async (onEvent, options) => {
  const handler = createNodeHandler(SECRET, onEvent, { ...options, onError: () => {} });
  const server = await listenNode(handler);
  return { url: `${server.url}/webhooks`, close: server.close };
});

describe('createNodeHandler', () => {
  test('reports an event handler error to onError as a WebhookHandlerError with the cause', async () => {
    const failure = new Error('boom');
    const reported: Error[] = [];
    const handler = createNodeHandler(
      SECRET,
      () => {
        throw failure;
      },
      { onError: (error) => reported.push(error) },
    );
    const server = await listenNode(handler);
    try {
      const body = JSON.stringify(sampleEvent());
      const response = await post(server.url, body, await signedHeaders(body));
      assert.equal(response.status, 500);
      assert.deepEqual(await response.json(), {
        statusCode: 500,
        error: 'Internal Server Error',
        code: 'HANDLER_FAILED',
        message: 'The webhook event handler failed',
      });
      assert.equal(reported.length, 1);
      assert.ok(reported[0] instanceof WebhookHandlerError);
      assert.equal(reported[0].cause, failure);
    } finally {
      await server.close();
    }
  });

  test('answers 405 with Allow: POST to other methods', async () => {
    const server = await listenNode(createNodeHandler(SECRET, () => {}));
    try {
      const response = await fetch(server.url);
      assert.equal(response.status, 405);
      assert.equal(response.headers.get('allow'), 'POST');
      assert.equal(((await response.json()) as { code: string }).code, 'METHOD_NOT_ALLOWED');
    } finally {
      await server.close();
    }
  });

  test('a chunked body without Content-Length is read to the end', async () => {
    const received: unknown[] = [];
    const server = await listenNode(createNodeHandler(SECRET, (event) => void received.push(event)));
    try {
      const body = JSON.stringify(sampleEvent());
      const bytes = new TextEncoder().encode(body);
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < bytes.length; i += 100) controller.enqueue(bytes.slice(i, i + 100));
          controller.close();
        },
      });
      const response = await fetch(server.url, {
        method: 'POST',
        headers: await signedHeaders(body),
        body: stream,
        // @ts-expect-error Node's fetch needs `duplex` for a streamed request body; lib.dom does not know it yet.
        duplex: 'half',
      });
      assert.equal(response.status, 204);
      assert.deepEqual(received, [sampleEvent()]);
    } finally {
      await server.close();
    }
  });

  test('a chunked body that grows past maxBodyBytes is refused with 413 while reading', async () => {
    const server = await listenNode(createNodeHandler(SECRET, () => {}, { maxBodyBytes: 4096 }));
    try {
      let pushed = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (++pushed > 64) controller.close();
          else controller.enqueue(new Uint8Array(1024).fill(0x20));
        },
      });
      const response = await fetch(server.url, {
        method: 'POST',
        headers: await signedHeaders('{}'),
        body: stream,
        // @ts-expect-error Node's fetch needs `duplex` for a streamed request body; lib.dom does not know it yet.
        duplex: 'half',
      });
      assert.equal(response.status, 413);
      assert.equal(((await response.json()) as { code: string }).code, 'PAYLOAD_TOO_LARGE');
    } finally {
      await server.close();
    }
  });

  test('configuration mistakes throw when the handler is created', () => {
    assert.throws(() => createNodeHandler('not-a-secret', () => {}), InvalidSecretError);
    assert.throws(() => createNodeHandler(SECRET, () => {}, { maxBodySize: 10 } as never), {
      name: 'TypeError',
      message: /createNodeHandler: unknown option "maxBodySize"; allowed: tolerance, now, maxBodyBytes, onError/,
    });
    assert.throws(() => createNodeHandler(SECRET, () => {}, { onError: 'log' as never }), TypeError);
    assert.throws(() => createNodeHandler(SECRET, 'handler' as never), TypeError);
  });
});
