import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import { describe, test } from 'node:test';
import express4, { type ErrorRequestHandler, type Express } from 'express';
import express5 from 'express5';
import { createExpressMiddleware } from './createExpressMiddleware.ts';
import { InvalidSecretError, WebhookHandlerError } from './errors.ts';
import { listen, SECRET, sampleEvent, signedHeaders } from './testing.ts';
import { describeHandlerContract, post } from './testingHandlers.ts';
import type { HandlerOptions, WebhookContext } from './types.ts';

type OnEvent = (event: unknown, context: WebhookContext<IncomingMessage>) => Promise<void>;

/** Collects errors passed to `next` and answers 500 like a typical app's error middleware. */
function errorRecorder(errors: unknown[]): ErrorRequestHandler {
  return (error, _req, res, _next) => {
    errors.push(error);
    res.status(500).json({ code: error.code ?? 'INTERNAL_ERROR' });
  };
}

async function serve(app: Express) {
  return listen(createServer(app));
}

for (const [major, express] of [
  ['Express 4', express4],
  ['Express 5', express5],
] as const) {
  const app = (setup: (app: Express) => void): Express => {
    const instance = express();
    instance.set('env', 'test'); // keeps the default error handler from logging stacks in test output
    setup(instance);
    return instance;
  };

  const startWith = (before: express4.RequestHandler[]) => async (onEvent: OnEvent, options: HandlerOptions) => {
    const server = await serve(
      app((a) => a.post('/webhooks', ...before, createExpressMiddleware(SECRET, onEvent, options))),
    );
    return { url: `${server.url}/webhooks`, close: server.close };
  };

  describeHandlerContract(`${major}, no body parser (reads the stream)`, startWith([]));
  describeHandlerContract(
    `${major}, after express.raw({ type: 'application/json' })`,
    startWith([express.raw({ type: 'application/json' })]),
  );

  describe(`createExpressMiddleware on ${major}`, () => {
    const body = JSON.stringify(sampleEvent());

    test('a global express.json() mounted after the webhook route leaves other routes parsing JSON', async () => {
      const events: unknown[] = [];
      const server = await serve(
        app((a) => {
          a.post(
            '/webhooks',
            createExpressMiddleware(SECRET, async (event) => void events.push(event)),
          );
          a.use(express.json());
          a.post('/echo', (req, res) => void res.json(req.body));
        }),
      );
      try {
        assert.equal((await post(`${server.url}/webhooks`, body, await signedHeaders(body))).status, 204);
        assert.deepEqual(events, [sampleEvent()]);
        const echo = await post(`${server.url}/echo`, '{"a":1}', { 'content-type': 'application/json' });
        assert.deepEqual(await echo.json(), { a: 1 });
      } finally {
        await server.close();
      }
    });

    test('express.json() before the middleware: 500 through next() with a TypeError explaining the fix', async () => {
      const errors: unknown[] = [];
      const server = await serve(
        app((a) => {
          a.use(express.json());
          a.post(
            '/webhooks',
            createExpressMiddleware(SECRET, async () => {}),
          );
          a.use(errorRecorder(errors));
        }),
      );
      try {
        const response = await post(`${server.url}/webhooks`, body, await signedHeaders(body));
        assert.equal(response.status, 500);
        assert.ok(errors[0] instanceof TypeError);
        assert.match(errors[0].message, /already parsed.*express\.json\(\).*express\.raw/s);
      } finally {
        await server.close();
      }
    });

    test('uses req.rawBody kept by a body parser verify callback, and express.text() strings', async () => {
      const events: unknown[] = [];
      const onEvent = async (event: unknown) => void events.push(event);
      const server = await serve(
        app((a) => {
          const keepRaw = (req: IncomingMessage, _res: unknown, buf: Buffer) => {
            (req as IncomingMessage & { rawBody?: Buffer }).rawBody = buf;
          };
          a.post('/json', express.json({ verify: keepRaw }), createExpressMiddleware(SECRET, onEvent));
          a.post('/text', express.text({ type: '*/*' }), createExpressMiddleware(SECRET, onEvent));
        }),
      );
      try {
        const spaced = JSON.stringify(sampleEvent(), null, 4);
        assert.equal((await post(`${server.url}/json`, spaced, await signedHeaders(spaced))).status, 204);
        assert.equal((await post(`${server.url}/text`, spaced, await signedHeaders(spaced))).status, 204);
        assert.deepEqual(events, [sampleEvent(), sampleEvent()]);
      } finally {
        await server.close();
      }
    });

    test('an event handler error reaches error middleware as a WebhookHandlerError (statusCode 500, cause)', async () => {
      const failure = new Error('queue full');
      const errors: unknown[] = [];
      const server = await serve(
        app((a) => {
          a.post(
            '/webhooks',
            createExpressMiddleware(SECRET, async () => {
              throw failure;
            }),
          );
          a.use(errorRecorder(errors));
        }),
      );
      try {
        const response = await post(`${server.url}/webhooks`, body, await signedHeaders(body));
        assert.equal(response.status, 500);
        assert.deepEqual(await response.json(), { code: 'HANDLER_FAILED' });
        assert.ok(errors[0] instanceof WebhookHandlerError);
        assert.equal(errors[0].statusCode, 500);
        assert.equal(errors[0].cause, failure);
      } finally {
        await server.close();
      }
    });

    test('mounted with app.use, other methods get 405', async () => {
      const server = await serve(
        app((a) =>
          a.use(
            '/webhooks',
            createExpressMiddleware(SECRET, async () => {}),
          ),
        ),
      );
      try {
        const response = await fetch(`${server.url}/webhooks`);
        assert.equal(response.status, 405);
        assert.equal(response.headers.get('allow'), 'POST');
      } finally {
        await server.close();
      }
    });
  });
}

describe('createExpressMiddleware configuration', () => {
  test('configuration mistakes throw when the middleware is created', () => {
    assert.throws(() => createExpressMiddleware('', async () => {}), InvalidSecretError);
    assert.throws(() => createExpressMiddleware(SECRET, async () => {}, { onError: () => {} } as never), {
      name: 'TypeError',
      message: /createExpressMiddleware: unknown option "onError"/,
    });
  });
});
