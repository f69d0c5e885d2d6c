// Child process of bench:tx: drives execute-transaction at a fixed rate, open loop (one request every 1/rate s,
// whatever the answers), so that the load generator does not share the API's event loop. A request's latency is
// counted from when it was due, not from when it left: a generator that falls behind cannot hide a slow server.
// (autocannon's rate option sends each connection's share of a second in one burst at the start of the second,
// which measures the burst's queue, not the server at that rate.) Requests are written as raw HTTP/1.1 on
// kept-alive sockets, one request at a time per socket: the generator shares the machine's two cores with what it
// measures, so it must cost little. Receives its options over IPC and answers with the result.
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { percentile } from '../scripts/lib/percentile.ts';

interface Options {
  url: string;
  apiKey: string;
  functionId: number;
  rate: number;
  seconds: number;
  /** Most sockets kept open to the API. */
  connections: number;
}

interface Pending {
  due: number;
  done: (status: number | undefined) => void;
}

/** One kept-alive connection: sends a request, reads its answer (status line and Content-Length body). */
function connection(url: URL) {
  const socket = net.connect(Number(url.port), url.hostname);
  socket.setNoDelay(true);
  let buffer: Buffer = Buffer.alloc(0);
  let current: Pending | undefined;
  let closed = false;
  socket.on('data', (chunk: Buffer) => {
    buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
    const headerEnd = buffer.indexOf('\r\n\r\n');
    if (headerEnd < 0) return;
    const head = buffer.subarray(0, headerEnd).toString('latin1');
    const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
    if (buffer.length < headerEnd + 4 + length) return;
    buffer = buffer.subarray(headerEnd + 4 + length);
    const status = Number(head.slice(9, 12));
    const pending = current;
    current = undefined;
    pending?.done(status);
  });
  const fail = () => {
    closed = true;
    const pending = current;
    current = undefined;
    pending?.done(undefined);
  };
  socket.on('error', fail);
  socket.on('close', fail);
  return {
    get busy() {
      return current !== undefined;
    },
    get closed() {
      return closed;
    },
    send(request: Buffer, pending: Pending) {
      current = pending;
      socket.write(request);
    },
    close: () => socket.destroy(),
  };
}

// Kept open from one run to the next, so the measured run does not open its connections.
const pool: ReturnType<typeof connection>[] = [];

async function run(o: Options) {
  const url = new URL(o.url);
  const waiting: { request: Buffer; pending: Pending }[] = [];
  const latencies: number[] = [];
  let accepted = 0;
  let non2xx = 0;
  let errors = 0;
  let outstanding = 0;
  let allSent = false;
  let finished: () => void = () => {};
  const drained = new Promise<void>((resolve) => {
    finished = resolve;
  });

  const dispatch = () => {
    for (let i = pool.length - 1; i >= 0; i--) if (pool[i]?.closed) pool.splice(i, 1);
    while (waiting.length > 0) {
      let free = pool.find((c) => !c.busy);
      if (!free && pool.length < o.connections) {
        free = connection(url);
        pool.push(free);
      }
      if (!free) return;
      const next = waiting.shift() as (typeof waiting)[number];
      free.send(next.request, next.pending);
    }
  };
  const complete = (due: number) => (status: number | undefined) => {
    latencies.push(performance.now() - due);
    if (status === undefined) errors++;
    else if (status >= 200 && status < 300) accepted++;
    else non2xx++;
    outstanding--;
    dispatch();
    if (allSent && outstanding === 0) finished();
  };

  const interval = 1000 / o.rate;
  const started = performance.now();
  const total = Math.round(o.rate * o.seconds);
  for (let n = 0; n < total; n++) {
    const due = started + n * interval;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const body = JSON.stringify({
      contractActivatedFunctionId: o.functionId,
      functionArgs: [String((n % 1000) + 1)],
      idempotencyKey: randomUUID(),
    });
    const request = Buffer.from(
      `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nX-API-Key: ${o.apiKey}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    outstanding++;
    waiting.push({ request, pending: { due, done: complete(due) } });
    dispatch();
  }
  allSent = true;
  if (outstanding > 0) await drained;
  latencies.sort((a, b) => a - b);
  return {
    accepted,
    non2xx,
    errors,
    p50: Math.round(percentile(latencies, 50) * 10) / 10,
    p99: Math.round(percentile(latencies, 99) * 10) / 10,
  };
}

// One run per message (the warm-up, then the measured run); the parent kills the process when done.
process.on('message', async (message) => {
  process.send?.(await run(message as Options));
});
