import net from 'node:net';

export interface RawRequest {
  method: string;
  /** The request-target as sent: path and query string, not normalised or re-encoded. */
  target: string;
  /** In order; a name may repeat. */
  headers: [string, string][];
  body?: Buffer;
  /** `HTTP/1.1` unless given. */
  version?: string;
  /** Send exactly `headers`: no Host, Connection or Content-Length added. */
  rawFraming?: boolean;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** The bytes of one request, header block in UTF-8 (so odd characters reach the server as they are). */
export function encodeRequest(request: RawRequest, port: number): Buffer {
  const lines = [`${request.method} ${request.target} ${request.version ?? 'HTTP/1.1'}`];
  if (!request.rawFraming) lines.push(`host: 127.0.0.1:${port}`, 'connection: close');
  for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
  if (!request.rawFraming && request.body) lines.push(`content-length: ${request.body.length}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8'), request.body ?? Buffer.alloc(0)]);
}

/**
 * Sends one request over a new loopback connection and reads the answer until the server closes it. A raw socket
 * rather than fetch/http.request, which refuse or normalise much of what a hostile client can send.
 */
export function sendRaw(port: number, request: RawRequest, timeoutMs = 10_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) return reject(error);
      try {
        resolve(parseResponse(Buffer.concat(chunks)));
      } catch (parseError) {
        reject(parseError);
      }
    };
    const timer = setTimeout(() => finish(new Error(`no complete answer within ${timeoutMs} ms`)), timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // Done as soon as one whole response is in, even if the server keeps the connection open.
      const data = Buffer.concat(chunks);
      if (completeLength(data) !== undefined) finish();
    });
    socket.on('end', () => finish());
    socket.on('close', () => finish());
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // The server may close while we are still writing a body it refused (413): read what it answered.
      if (chunks.length > 0 && (error.code === 'EPIPE' || error.code === 'ECONNRESET')) finish();
      else finish(error);
    });
    socket.write(encodeRequest(request, port));
  });
}

function splitHead(data: Buffer) {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const lines = data.subarray(0, end).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '');
  if (!status) throw new Error(`not an HTTP response: ${JSON.stringify(lines[0])}`);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(status[1]), headers, bodyStart: end + 4 };
}

/** Total length of the first response in `data` once it is complete, else undefined. */
function completeLength(data: Buffer): number | undefined {
  const head = splitHead(data);
  if (!head) return undefined;
  const length = head.headers['content-length'];
  if (length !== undefined) {
    const total = head.bodyStart + Number(length);
    return data.length >= total ? total : undefined;
  }
  if (/chunked/i.test(head.headers['transfer-encoding'] ?? '')) {
    const decoded = dechunk(data.subarray(head.bodyStart));
    return decoded ? data.length : undefined;
  }
  return undefined;
}

function dechunk(data: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (Number.isNaN(size)) return undefined;
    if (size === 0) return Buffer.concat(parts);
    if (data.length < lineEnd + 2 + size + 2) return undefined;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

function parseResponse(data: Buffer): RawResponse {
  const head = splitHead(data);
  if (!head) throw new Error(`the server closed the connection without an answer (${data.length} bytes)`);
  const rest = data.subarray(head.bodyStart);
  let body = rest;
  if (head.headers['content-length'] !== undefined) body = rest.subarray(0, Number(head.headers['content-length']));
  else if (/chunked/i.test(head.headers['transfer-encoding'] ?? '')) body = dechunk(rest) ?? rest;
  return { status: head.status, headers: head.headers, body };
}
