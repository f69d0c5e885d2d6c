import { REPORTING_HANDLER_OPTIONS, type ReportingHandlerOptions, report } from './createNodeHandler.ts';
import type { WebhookEvent } from './events.ts';
import {
  checkOnError,
  type DeliveryResult,
  errorResult,
  handleDelivery,
  methodNotAllowed,
  setupHandler,
} from './handleDelivery.ts';
import type { WebhookSecrets } from './secret.ts';
import type { WebhookEventHandler } from './types.ts';

/** Reads a Fetch body as bytes, stopping (and cancelling the stream) once it exceeds `limit`. */
async function readRequestBody(request: Request, limit: number): Promise<Uint8Array | undefined> {
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) return undefined;
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.length;
  }
  return body;
}

function toResponse(result: DeliveryResult): Response {
  if (!('body' in result)) return new Response(null, { status: result.status });
  return new Response(JSON.stringify(result.body), {
    status: result.status,
    headers: { ...result.headers, 'content-type': 'application/json; charset=utf-8' },
  });
}

/**
 * Creates a Web-standard handler `(request: Request) => Promise<Response>` for any Fetch-API runtime: Deno
 * (`Deno.serve`), Bun, Cloudflare and other edge workers, Next.js/Hono route handlers, or Node 20+ behind an
 * adapter. It reads the body as bytes with `request.body`, verifies it and calls `onEvent` with the typed event.
 *
 * Answers 204 when `onEvent` returns, 400 `{ code, message, … }` when verification fails, 405 for methods other
 * than POST, 413 above `maxBodyBytes`, and 500 when `onEvent` throws (after calling `onError`), so the sender
 * retries. The returned promise never rejects.
 *
 * @param secret The subscription's `webhookSecret`; a bad one throws {@link InvalidSecretError} right away.
 * @param onEvent Your handler; `context.request` is the `Request` (its body already read).
 * @param options `tolerance`, `now`, `maxBodyBytes`, `onError`; unknown options throw.
 * @example
 * ```ts
 * import { createFetchHandler } from '@mountain/webhook-sdk';
 *
 * const handler = createFetchHandler(Deno.env.get('MOUNTAIN_WEBHOOK_SECRET') ?? '', async (event) => {
 *   console.log(event.data.event.name, event.data.decodedLog);
 * });
 * Deno.serve({ port: 3000 }, handler); // or: export default { fetch: handler } in a worker
 * ```
 */
export function createFetchHandler<T = WebhookEvent>(
  secret: WebhookSecrets,
  onEvent: WebhookEventHandler<Request, T>,
  options?: ReportingHandlerOptions,
): (request: Request) => Promise<Response> {
  const setup = setupHandler<Request>('createFetchHandler', secret, onEvent, options, REPORTING_HANDLER_OPTIONS);
  checkOnError(options?.onError, 'createFetchHandler');
  return async (request) => {
    try {
      if (request.method.toUpperCase() !== 'POST') {
        return toResponse(methodNotAllowed());
      }
      const body = await readRequestBody(request, setup.maxBodyBytes);
      const result = await handleDelivery(setup, { method: request.method, body, headers: request.headers, request });
      if ('error' in result && result.error) report(options?.onError, result.error);
      return toResponse(result);
    } catch (error) {
      // Typically the client aborted mid-body; answer anyway so no promise is left rejected.
      report(options?.onError, error);
      return toResponse(errorResult(500, 'INTERNAL_ERROR', 'Internal error'));
    }
  };
}
