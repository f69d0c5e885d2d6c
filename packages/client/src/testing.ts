// Test helpers (not published): a loopback HTTP server that answers from a script and records every request,
// for the behaviours a healthy API server never shows on demand (500s, 429s, resets, silence).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** `performance.now()` when the request arrived. */
  at: number;
}

export type Responder = (request: RecordedRequest, response: ServerResponse, index: number) => void;

export interface LoopbackServer {
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Starts a server on 127.0.0.1 that calls `respond` for each request (index from 0). */
export async function startLoopbackServer(respond: Responder): Promise<LoopbackServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer(async (req, res) => {
    const at = performance.now();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const recorded = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
      at,
    };
    requests.push(recorded);
    respond(recorded, res, requests.length - 1);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/public-api/v3`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers JSON with a status and optional headers. */
export function json(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

/** The API's error body for a status and code. */
export function apiError(status: number, code: string, extra: Record<string, unknown> = {}) {
  return { statusCode: status, error: 'Error', code, message: `${code} happened`, ...extra };
}
