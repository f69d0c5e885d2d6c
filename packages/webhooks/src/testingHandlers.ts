// A behaviour contract every ready-made handler must meet, run by each framework's test file over real HTTP.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { OTHER_SECRET, oddlyFormattedBody, sampleEvent, signedHeaders } from './testing.ts';
import type { HandlerOptions, WebhookContext } from './types.ts';

export interface Received {
  event: unknown;
  context: WebhookContext<unknown>;
}

/** Starts a server whose webhook endpoint is `url`, built with `SECRET`, calling `onEvent` for each event. */
export type StartServer = (
  onEvent: (event: unknown, context: WebhookContext<unknown>) => Promise<void>,
  options: HandlerOptions,
) => Promise<{ url: string; close: () => Promise<void> }>;

export const MAX_BODY_BYTES = 8 * 1024;

/** Starts a server with a recording event handler, runs `fn` against it, and closes it. */
export async function withServer(
  start: StartServer,
  fn: (url: string, received: Received[]) => Promise<void>,
  failWith?: Error,
): Promise<void> {
  const received: Received[] = [];
  const server = await start(
    async (event, context) => {
      received.push({ event, context });
      if (failWith) throw failWith;
    },
    { maxBodyBytes: MAX_BODY_BYTES },
  );
  try {
    await fn(server.url, received);
  } finally {
    await server.close();
  }
}

export async function post(url: string, body: string, headers: Record<string, string>): Promise<Response> {
  return fetch(url, { method: 'POST', headers, body });
}

async function assertRejected(response: Response, code: string, received: Received[]): Promise<void> {
  assert.equal(response.status, 400);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  const body = (await response.json()) as Record<string, unknown>;
  assert.equal(body.statusCode, 400);
  assert.equal(body.error, 'Bad Request');
  assert.equal(body.code, code);
  assert.equal(typeof body.message, 'string');
  assert.equal(received.length, 0, 'the event handler must not run for a rejected delivery');
}

export function describeHandlerContract(name: string, start: StartServer): void {
  describe(`${name}: handler contract over loopback HTTP`, () => {
    test('a valid delivery answers 204 and passes the typed event, id and timestamp to the handler', async () => {
      await withServer(start, async (url, received) => {
        const body = JSON.stringify(sampleEvent());
        const headers = await signedHeaders(body, { id: 'msg_contract_1' });
        const response = await post(url, body, headers);
        assert.equal(response.status, 204);
        assert.equal(await response.text(), '');
        assert.equal(received.length, 1);
        assert.deepEqual(received[0]?.event, sampleEvent());
        assert.equal(received[0]?.context.id, 'msg_contract_1');
        assert.equal(received[0]?.context.timestamp.getTime(), Number(headers['webhook-timestamp']) * 1000);
        assert.ok(received[0]?.context.request, 'the framework request is passed on');
      });
    });

    test('uses the raw bytes: a body with unusual whitespace, CRLF and key order verifies', async () => {
      await withServer(start, async (url, received) => {
        const body = oddlyFormattedBody();
        const response = await post(url, body, await signedHeaders(body));
        assert.equal(response.status, 204);
        assert.deepEqual(received[0]?.event, sampleEvent());
      });
    });

    test('uses the raw bytes: non-ASCII text verifies', async () => {
      await withServer(start, async (url, received) => {
        const event = sampleEvent({ decodedLog: { memo: 'Grüße, 世界 🏔️', amount: '1000000000000000000000' } });
        const body = JSON.stringify(event, null, 1);
        const response = await post(url, body, await signedHeaders(body));
        assert.equal(response.status, 204);
        assert.deepEqual(received[0]?.event, event);
      });
    });

    test('another secret answers 400 NO_MATCHING_SIGNATURE', async () => {
      await withServer(start, async (url, received) => {
        const body = JSON.stringify(sampleEvent());
        const response = await post(url, body, await signedHeaders(body, { secret: OTHER_SECRET }));
        await assertRejected(response, 'NO_MATCHING_SIGNATURE', received);
      });
    });

    test('a missing header answers 400 MISSING_HEADER naming it', async () => {
      await withServer(start, async (url, received) => {
        const body = JSON.stringify(sampleEvent());
        const { 'webhook-signature': _, ...headers } = await signedHeaders(body);
        const response = await post(url, body, headers);
        assert.equal(response.status, 400);
        const error = (await response.clone().json()) as { message: string };
        assert.match(error.message, /webhook-signature/);
        await assertRejected(response, 'MISSING_HEADER', received);
      });
    });

    test('an hour-old timestamp answers 400 TIMESTAMP_TOO_OLD', async () => {
      await withServer(start, async (url, received) => {
        const body = JSON.stringify(sampleEvent());
        const timestamp = Math.floor(Date.now() / 1000) - 3600;
        await assertRejected(
          await post(url, body, await signedHeaders(body, { timestamp })),
          'TIMESTAMP_TOO_OLD',
          received,
        );
      });
    });

    test('a signed body that is not JSON answers 400 INVALID_PAYLOAD', async () => {
      await withServer(start, async (url, received) => {
        const body = '{"type": "event_notifier.event", ';
        await assertRejected(await post(url, body, await signedHeaders(body)), 'INVALID_PAYLOAD', received);
      });
    });

    test('an event handler error answers 500, so the sender retries', async () => {
      const failure = new Error('database unavailable');
      await withServer(
        start,
        async (url, received) => {
          const body = JSON.stringify(sampleEvent());
          const response = await post(url, body, await signedHeaders(body));
          assert.equal(response.status, 500);
          assert.doesNotMatch(await response.text(), /database unavailable/, 'internal messages are not echoed');
          assert.equal(received.length, 1);
        },
        failure,
      );
    });

    test('a body above maxBodyBytes answers 413 without calling the handler', async () => {
      await withServer(start, async (url, received) => {
        const body = JSON.stringify({ ...sampleEvent(), padding: 'x'.repeat(MAX_BODY_BYTES) });
        const response = await post(url, body, await signedHeaders(body));
        assert.equal(response.status, 413);
        await response.arrayBuffer();
        assert.equal(received.length, 0);
      });
    });
  });
}
