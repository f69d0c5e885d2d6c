import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  headers: Record<string, string>;
  body: string;
  receivedAt: number;
}

/** How to answer a delivery; `delayMs` holds the answer back (to outlast the sender's timeout). */
export type Responder = (delivery: Delivery) => { status: number; headers?: Record<string, string>; delayMs?: number };

/** A real HTTP server on loopback that records every webhook and answers as `respond` says (default 200). */
export async function startReceiver(respond: Responder = () => ({ status: 200 })) {
  const deliveries: Delivery[] = [];
  let responder = respond;
  const waiters: { predicate: () => boolean; resolve: () => void }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const delivery: Delivery = {
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
      };
      deliveries.push(delivery);
      const answer = responder(delivery);
      const send = () => {
        if (!res.destroyed) res.writeHead(answer.status, answer.headers).end();
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs).unref();
      else send();
      for (const w of [...waiters]) {
        if (w.predicate()) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    deliveries,
    respondWith(next: Responder) {
      responder = next;
    },
    /** Resolves when `predicate` holds (checked after each delivery), or rejects after `timeoutMs`. */
    waitFor(predicate: () => boolean, timeoutMs = 20_000, what = 'deliveries'): Promise<void> {
      if (predicate()) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`timed out waiting for ${what} (got ${deliveries.length})`));
        }, timeoutMs);
        const waiter = {
          predicate,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
        waiters.push(waiter);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** Polls `check` until it returns a truthy value, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false>,
  timeoutMs = 20_000,
  what = 'condition',
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
