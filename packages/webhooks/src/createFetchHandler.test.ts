import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createFetchHandler } from './createFetchHandler.ts';
import { InvalidSecretError, WebhookHandlerError } from './errors.ts';
import { jsonOrEmpty, SECRET, sampleEvent, serveFetch, signedHeaders } from './testing.ts';
import { describeHandlerContract } from './testingHandlers.ts';

describeHandlerContract('createFetchHandler', async (onEvent, options) => {
  const server = await serveFetch(createFetchHandler(SECRET, onEvent, { ...options, onError: () => {} }));
  return { url: `${server.url}/webhooks`, close: server.close };
});

describe('createFetchHandler', () => {
  test('handles a Request directly, with no server, as in a worker or Deno.serve', async () => {
    const received: string[] = [];
    const handler = createFetchHandler(SECRET, async (event, { id, request }) => {
      received.push(`${id} ${event.data.event.name} ${new URL(request.url).pathname}`);
    });
    const body = JSON.stringify(sampleEvent());
    const request = new Request('https://receiver.example/hooks', {
      method: 'POST',
      headers: await signedHeaders(body, { id: 'msg_direct' }),
      body,
    });
    const response = await handler(request);
    assert.equal(response.status, 204);
    assert.deepEqual(received, ['msg_direct Transfer /hooks']);
  });

  test('reports an event handler error to onError and answers 500 HANDLER_FAILED', async () => {
    const failure = new TypeError('bad row');
    const reported: Error[] = [];
    const handler = createFetchHandler(
      SECRET,
      async () => {
        throw failure;
      },
      { onError: (error) => reported.push(error) },
    );
    const body = JSON.stringify(sampleEvent());
    const response = await handler(
      new Request('http://x/', { method: 'POST', headers: await signedHeaders(body), body }),
    );
    assert.equal(response.status, 500);
    assert.equal(((await response.json()) as { code: string }).code, 'HANDLER_FAILED');
    assert.ok(reported[0] instanceof WebhookHandlerError);
    assert.equal(reported[0].cause, failure);
  });

  test('answers 405 with Allow: POST to other methods', async () => {
    const response = await createFetchHandler(SECRET, () => {})(new Request('http://x/webhooks'));
    assert.equal(response.status, 405);
    assert.equal(response.headers.get('allow'), 'POST');
    assert.equal(((await jsonOrEmpty(response)) as { code: string }).code, 'METHOD_NOT_ALLOWED');
  });

  test('a streamed body above maxBodyBytes is refused with 413 while reading', async () => {
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(1024).fill(0x20));
      },
    });
    const handler = createFetchHandler(SECRET, () => {}, { maxBodyBytes: 4096 });
    const request = new Request('http://x/', {
      method: 'POST',
      headers: await signedHeaders('{}'),
      body: stream,
      // @ts-expect-error Node's fetch needs `duplex` for a streamed request body; lib.dom does not know it yet.
      duplex: 'half',
    });
    const response = await handler(request);
    assert.equal(response.status, 413);
    assert.ok(pulled < 100, 'the endless body was not read to the end');
  });

  test('configuration mistakes throw when the handler is created', () => {
    assert.throws(() => createFetchHandler('whsec_%%%', () => {}), InvalidSecretError);
    assert.throws(() => createFetchHandler(SECRET, () => {}, { path: '/x' } as never), {
      name: 'TypeError',
      message: /createFetchHandler: unknown option "path"/,
    });
  });
});
