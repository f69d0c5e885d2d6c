import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DeliveryResult } from './handleDelivery.ts';

/**
 * Reads a Node request body as bytes, without decoding: the signature covers the exact bytes sent.
 * Resolves `undefined` once the body exceeds `limit`, without buffering the rest.
 */
export function readNodeBody(req: IncomingMessage, limit: number): Promise<Uint8Array | undefined> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += bytes.length;
      if (size > limit) {
        cleanup();
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(bytes);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onClose = () => {
      cleanup();
      reject(new Error('The request was closed before its body was complete'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** Writes a delivery result as an HTTP answer: 204 without a body, otherwise a JSON error body. */
export function writeNodeResult(res: ServerResponse, result: DeliveryResult): void {
  res.statusCode = result.status;
  if (!('body' in result)) {
    res.end();
    return;
  }
  for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.end(JSON.stringify(result.body));
}
