import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { createFastifyPlugin } from './createFastifyPlugin.ts';
import { InvalidSecretError, WebhookHandlerError } from './errors.ts';
import { SECRET, sampleEvent, signedHeaders } from './testing.ts';
import { describeHandlerContract, post } from './testingHandlers.ts';

async function start(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

describeHandlerContract('createFastifyPlugin', async (onEvent, options) => {
  const app = Fastify();
  await app.register(createFastifyPlugin(SECRET, onEvent, options));
  return { url: `${await start(app)}/webhooks`, close: () => app.close() };
});

describe('createFastifyPlugin', () => {
  const body = JSON.stringify(sampleEvent(), null, 2);

  test('the raw-body parser is scoped to the plugin: sibling routes still parse JSON', async () => {
    const app = Fastify();
    const events: unknown[] = [];
    await app.register(createFastifyPlugin(SECRET, async (event) => void events.push(event)));
    app.post('/echo', async (request) => ({ parsed: request.body }));
    try {
      const url = await start(app);
      assert.equal((await post(`${url}/webhooks`, body, await signedHeaders(body))).status, 204);
      assert.deepEqual(events, [sampleEvent()]);
      const echo = await post(`${url}/echo`, '{"a":1}', { 'content-type': 'application/json' });
      assert.deepEqual(await echo.json(), { parsed: { a: 1 } });
    } finally {
      await app.close();
    }
  });

  test('honours the path option and a register prefix, and types the request as FastifyRequest', async () => {
    const app = Fastify();
    const urls: string[] = [];
    const plugin = createFastifyPlugin<FastifyRequest>(
      SECRET,
      async (_event, { request }) => void urls.push(request.url),
      { path: '/mountain' },
    );
    await app.register(plugin, { prefix: '/hooks' });
    try {
      const url = await start(app);
      assert.equal((await post(`${url}/hooks/mountain`, body, await signedHeaders(body))).status, 204);
      assert.deepEqual(urls, ['/hooks/mountain']);
      assert.equal((await post(`${url}/webhooks`, body, await signedHeaders(body))).status, 404);
    } finally {
      await app.close();
    }
  });

  test('accepts any content type as raw bytes', async () => {
    const app = Fastify();
    const events: unknown[] = [];
    await app.register(createFastifyPlugin(SECRET, async (event) => void events.push(event)));
    try {
      const url = await start(app);
      const headers = { ...(await signedHeaders(body)), 'content-type': 'text/plain; charset=utf-8' };
      assert.equal((await post(`${url}/webhooks`, body, headers)).status, 204);
      assert.deepEqual(events, [sampleEvent()]);
    } finally {
      await app.close();
    }
  });

  test("an event handler error goes through Fastify's error handler as a WebhookHandlerError: 500", async () => {
    const failure = new Error('downstream timeout');
    const errors: unknown[] = [];
    const app = Fastify();
    app.setErrorHandler((error, _request, reply) => {
      errors.push(error);
      return reply.send(error);
    });
    await app.register(
      createFastifyPlugin(SECRET, async () => {
        throw Object.assign(failure, { statusCode: 400 }); // must not turn into a 400 that stops retries
      }),
    );
    try {
      const response = await post(`${await start(app)}/webhooks`, body, await signedHeaders(body));
      assert.equal(response.status, 500);
      assert.equal(((await response.json()) as { code: string }).code, 'HANDLER_FAILED');
      assert.ok(errors[0] instanceof WebhookHandlerError);
      assert.equal(errors[0].cause, failure);
    } finally {
      await app.close();
    }
  });

  test('configuration mistakes throw when the plugin is created', () => {
    assert.throws(() => createFastifyPlugin('whsec', async () => {}), InvalidSecretError);
    assert.throws(() => createFastifyPlugin(SECRET, async () => {}, { prefix: '/x' } as never), {
      name: 'TypeError',
      message: /createFastifyPlugin: unknown option "prefix"; allowed: tolerance, now, maxBodyBytes, path/,
    });
    assert.throws(() => createFastifyPlugin(SECRET, async () => {}, { path: 'webhooks' }), TypeError);
  });
});
