import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebhookEvent } from './events.ts';
import { HANDLER_OPTIONS, handleDelivery, setupHandler } from './handleDelivery.ts';
import { readNodeBody, writeNodeResult } from './nodeIo.ts';
import type { WebhookSecrets } from './secret.ts';
import type { HandlerOptions, WebhookEventHandler } from './types.ts';

/** The fields Express body parsers leave on a request, read to find the raw body. */
interface ParsedRequest {
  body?: unknown;
  rawBody?: unknown;
  /** body-parser's own mark that it consumed the stream. */
  _body?: boolean;
}

const CONSUMED_MESSAGE =
  'createExpressMiddleware: the request body was already parsed (e.g. by express.json()), so its raw bytes are ' +
  'lost and no signature can be checked. Mount the webhook route before express.json(), or give it ' +
  "express.raw({ type: 'application/json' }).";

function rawBodyOf(req: IncomingMessage & ParsedRequest): string | Uint8Array | 'unread' | 'consumed' {
  // express.raw() leaves a Buffer, express.text() a string; a `verify` callback may have kept `rawBody`.
  if (req.body instanceof Uint8Array || typeof req.body === 'string') return req.body;
  if (req.rawBody instanceof Uint8Array || typeof req.rawBody === 'string') return req.rawBody;
  // A parser that skipped this content type leaves the stream untouched (and `req.body` as `{}` or undefined).
  return req._body === true || req.readableEnded ? 'consumed' : 'unread';
}

/**
 * Creates an Express (4 or 5) middleware that verifies the webhook and calls `onEvent` with the typed event.
 *
 * Raw body: the middleware needs the exact bytes. It uses `req.body` when `express.raw()` (a `Buffer`) or
 * `express.text()` (a string) ran before it, or `req.rawBody` if a `verify` callback kept it; otherwise it reads
 * the request stream itself, so no body parser is needed at all. If `express.json()` already consumed the stream
 * it cannot verify and passes a `TypeError` to `next` (a 500), saying so: mount it before `express.json()`.
 *
 * Answers 204 when `onEvent` returns, 400 `{ code, message, … }` when verification fails, 405 for methods other
 * than POST and 413 above `maxBodyBytes`. When `onEvent` throws, it calls `next` with a {@link WebhookHandlerError}
 * (`statusCode` 500, your error as `cause`), so your error middleware logs it and Express answers 500.
 *
 * @param secret The subscription's `webhookSecret`; a bad one throws {@link InvalidSecretError} right away.
 * @param onEvent Your handler; `context.request` is the Express request.
 * @param options `tolerance`, `now`, `maxBodyBytes`; unknown options throw.
 * @example
 * ```ts
 * import express from 'express';
 * import { createExpressMiddleware } from '@mountain/webhook-sdk';
 *
 * const app = express();
 * // Before any app.use(express.json()): the middleware reads the raw body itself.
 * app.post(
 *   '/webhooks',
 *   createExpressMiddleware(process.env.MOUNTAIN_WEBHOOK_SECRET ?? '', async (event) => {
 *     console.log(event.data.event.name, event.data.decodedLog);
 *   }),
 * );
 * app.use(express.json());
 * app.listen(3000);
 * ```
 */
export function createExpressMiddleware<Req extends IncomingMessage = IncomingMessage, T = WebhookEvent>(
  secret: WebhookSecrets,
  onEvent: WebhookEventHandler<Req, T>,
  options?: HandlerOptions,
): (req: Req, res: ServerResponse, next: (error?: unknown) => void) => void {
  const setup = setupHandler<Req>('createExpressMiddleware', secret, onEvent, options, HANDLER_OPTIONS);
  const run = async (req: Req, res: ServerResponse, next: (error?: unknown) => void): Promise<void> => {
    const raw = rawBodyOf(req);
    if (raw === 'consumed') return next(new TypeError(CONSUMED_MESSAGE));
    const body = raw === 'unread' ? await readNodeBody(req, setup.maxBodyBytes) : raw;
    const result = await handleDelivery(setup, { method: req.method, body, headers: req.headers, request: req });
    if ('error' in result && result.error) return next(result.error);
    writeNodeResult(res, result);
  };
  return (req, res, next) => {
    run(req, res, next).catch(next);
  };
}
