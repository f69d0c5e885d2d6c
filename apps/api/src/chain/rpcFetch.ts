import { isAscii } from 'node:buffer';
import http from 'node:http';
import https from 'node:https';

/** Kept-alive sockets to each RPC endpoint, shared by every client of the process. */
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

/**
 * viem's default cap on a response body: an endpoint cannot make the process buffer more. The clients' transport
 * leaves the check to this function (`maxResponseBodySize: false` in chains.ts).
 */
const MAX_BODY_BYTES = 10_485_760;

/** What viem's HTTP transport reads from a response: status, headers and the body as text. */
interface RpcResponse {
  ok: boolean;
  status: number;
  statusText: string;
  headers: Headers;
  body: null;
  text(): Promise<string>;
}

/**
 * The `fetchFn` of the platform's JSON-RPC clients: one POST over `node:http(s)` with kept-alive sockets. Every
 * transaction and event scan makes JSON-RPC calls; the global `fetch` builds web streams, a `Request` and a
 * `Response` for each, which costs about twice the CPU of this for the same call (measured with anvil). Timeouts
 * and cancellation come from viem through `init.signal`.
 */
export function rpcFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  // viem reads only what RpcResponse has.
  return send(url, init) as Promise<unknown> as Promise<Response>;
}

/**
 * The JSON-RPC methods that change nothing where they are answered. A request made only of them is sent again when the
 * endpoint had closed the kept-alive socket it went out on (below); any other (a raw transaction, a filter's changes,
 * a test chain's own methods) fails as it failed, for its caller to decide.
 */
const READS = new Set([
  'eth_blockNumber',
  'eth_call',
  'eth_chainId',
  'eth_estimateGas',
  'eth_feeHistory',
  'eth_gasPrice',
  'eth_getBalance',
  'eth_getBlockByHash',
  'eth_getBlockByNumber',
  'eth_getBlockReceipts',
  'eth_getCode',
  'eth_getLogs',
  'eth_getStorageAt',
  'eth_getTransactionByHash',
  'eth_getTransactionCount',
  'eth_getTransactionReceipt',
  'eth_maxPriorityFeePerGas',
  'net_version',
  'txpool_content',
  'txpool_inspect',
  'txpool_status',
]);

/** Whether `body` is a JSON-RPC request, or batch, of reads only. */
function onlyReads(body: RequestInit['body']): boolean {
  if (typeof body !== 'string') return false;
  try {
    const parsed: unknown = JSON.parse(body);
    const calls = Array.isArray(parsed) ? parsed : [parsed];
    return calls.every((call) => READS.has((call as { method?: unknown })?.method as string));
  } catch {
    return false;
  }
}

/**
 * An endpoint may close an idle kept-alive socket just as a request goes out on it (its idle timeout crossing the
 * request): the request then fails with ECONNRESET before any answer, through no fault of the endpoint's. A request of
 * reads only is then sent again, as Node's documentation advises (`request.reusedSocket`); the socket has left the
 * pool, so the tries end on a new socket at the latest, where a failure is the endpoint's. Anything else is not sent
 * twice: the endpoint may have received it.
 */
async function send(target: URL, init: RequestInit): Promise<RpcResponse> {
  for (;;) {
    try {
      return await sendOnce(target, init);
    } catch (error) {
      if (!(error instanceof StaleSocket)) throw error;
      if (!onlyReads(init.body)) throw error.cause;
    }
  }
}

/** The request went out on a kept-alive socket the endpoint had closed, and got no answer on it. */
class StaleSocket extends Error {}

function sendOnce(target: URL, init: RequestInit): Promise<RpcResponse> {
  const transport = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let answered = false;
    const request = transport.request(
      target,
      {
        method: init.method ?? 'GET',
        headers: init.headers as Record<string, string> | undefined,
        agent: agents[target.protocol as keyof typeof agents],
        signal: init.signal ?? undefined,
      },
      (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_BODY_BYTES) {
            request.destroy(new Error(`The response body is larger than ${MAX_BODY_BYTES} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on('error', reject);
        response.on('end', () => {
          const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
          // JSON-RPC answers are ASCII but for the odd error message; read as such, a byte is a character, which
          // V8 copies where UTF-8 has to be decoded (a dense eth_getLogs answer: 3 MB, 3 ms against 10).
          const text = body.toString(isAscii(body) ? 'latin1' : 'utf8');
          const status = response.statusCode ?? 0;
          const headers = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
          }
          resolve({
            ok: status >= 200 && status < 300,
            status,
            statusText: response.statusMessage ?? '',
            headers,
            body: null,
            text: async () => text,
          });
        });
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) => {
      const stale = !answered && request.reusedSocket && error.code === 'ECONNRESET' && !init.signal?.aborted;
      reject(stale ? new StaleSocket(error.message, { cause: error }) : error);
    });
    request.end(typeof init.body === 'string' ? init.body : undefined);
  });
}
