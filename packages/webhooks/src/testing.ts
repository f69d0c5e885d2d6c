// Helpers for this package's tests only (excluded from the build).
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { testEvent } from '../examples/sendTestDelivery.ts';
import type { WebhookEvent } from './events.ts';
import { sign } from './sign.ts';

/** The secret of the Standard Webhooks reference test vector. */
export const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw6eDGZ0b1pHU=';
export const OTHER_SECRET = 'whsec_c2VjcmV0LW51bWJlci10d28tMzItYnl0ZXMtbG9uZyE=';
const MAX_UINT256 = '115792089237316195423570985008687907853269984665640564039457584007913129639935';

/**
 * The event the examples send, with the largest uint256 as `value` (a number would lose it) and `overrides` on
 * its `data`.
 */
export function sampleEvent(overrides: Partial<WebhookEvent['data']> = {}): WebhookEvent {
  const { data, ...event } = structuredClone(testEvent);
  return { ...event, data: { ...data, decodedLog: { ...data.decodedLog, value: MAX_UINT256 }, ...overrides } };
}

/** A JSON body laid out unlike `JSON.stringify` would (indentation, spaces, key order), to catch re-serialisation. */
export function oddlyFormattedBody(event: WebhookEvent = sampleEvent()): string {
  return `{\n    "data" :  ${JSON.stringify(event.data, null, 3)},\r\n  "timestamp":"${event.timestamp}",  "type" : "${event.type}"\n}\n`;
}

/** Signs `body` now and returns fetch headers including the JSON content type. */
export async function signedHeaders(
  body: string | Uint8Array,
  options: { secret?: string | string[]; id?: string; timestamp?: number } = {},
): Promise<Record<string, string>> {
  const headers = await sign({
    id: options.id ?? 'msg_2kXo1W3r8d7cTqZ',
    body,
    secret: options.secret ?? SECRET,
    ...(options.timestamp === undefined ? {} : { timestamp: options.timestamp }),
  });
  return { ...headers, 'content-type': 'application/json' };
}

/** Starts `server` on a free loopback port; returns its base URL and a `close` that ends idle keep-alives too. */
export async function listen(server: Server): Promise<{ url: string; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

export function listenNode(listener: RequestListener): ReturnType<typeof listen> {
  return listen(createServer(listener));
}

/** Serves a Web-standard handler from Node's `http`, the way runtimes with a fetch server (Deno, workers) call it. */
export function serveFetch(handler: (request: Request) => Promise<Response>): ReturnType<typeof listen> {
  return listenNode(async (req: IncomingMessage, res: ServerResponse) => {
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const request = new Request(new URL(req.url ?? '/', 'http://127.0.0.1'), {
      method: req.method ?? 'GET',
      headers: Object.entries(req.headers).flatMap(([name, value]) =>
        (Array.isArray(value) ? value : value === undefined ? [] : [value]).map((v): [string, string] => [name, v]),
      ),
      body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : null,
      // @ts-expect-error Node's fetch needs `duplex` for a streamed request body; lib.dom does not know it yet.
      duplex: 'half',
    });
    const response = await handler(request);
    res.statusCode = response.status;
    response.headers.forEach((value, name) => {
      res.setHeader(name, value);
    });
    res.end(Buffer.from(await response.arrayBuffer()));
  });
}

/** Reads a JSON error body, or `undefined` for an empty one. */
export async function jsonOrEmpty(response: Response): Promise<unknown> {
  const text = await response.text();
  return text === '' ? undefined : JSON.parse(text);
}
