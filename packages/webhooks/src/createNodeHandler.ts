import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebhookEvent } from './events.ts';
import { checkOnError, errorResult, HANDLER_OPTIONS, handleDelivery, setupHandler } from './handleDelivery.ts';
import { readNodeBody, writeNodeResult } from './nodeIo.ts';
import type { WebhookSecrets } from './secret.ts';
import type { HandlerOptions, WebhookEventHandler } from './types.ts';

/**
 * Options of {@link createNodeHandler} and {@link createFetchHandler}.
 *
 * @example
 * ```ts
 * import type { ReportingHandlerOptions } from '@mountain/webhook-sdk';
 *
 * const options: ReportingHandlerOptions = {
 *   onError: (error) => logger.error({ err: error.cause }, 'webhook handler failed'),
 * };
 * ```
 */
export interface ReportingHandlerOptions extends HandlerOptions {
  /**
   * Called before a 500 answer: with a {@link WebhookHandlerError} whose `cause` is your error when the event
   * handler throws, or with the error itself on an unexpected failure. Default: `console.error`.
   */
  onError?: (error: Error) => void;
}

export const REPORTING_HANDLER_OPTIONS = [...HANDLER_OPTIONS, 'onError'] as const;

/** Reports an event handler's failure without letting a faulty reporter break the answer. */
export function report(onError: ((error: Error) => void) | undefined, error: unknown): void {
  try {
    (onError ?? console.error)(error instanceof Error ? error : new Error(String(error)));
  } catch {
    // The 500 answer matters more than the report.
  }
}

/**
 * Creates a request listener for Node's `http`/`https` servers that reads the raw body from the request stream,
 * verifies it and calls `onEvent` with the typed event.
 *
 * Answers 204 when `onEvent` returns, 400 `{ code, message, … }` when verification fails, 405 for methods other
 * than POST, 413 above `maxBodyBytes`, and 500 when `onEvent` throws (so the sender retries). The returned
 * function never rejects.
 *
 * @param secret The subscription's `webhookSecret`; a bad one throws {@link InvalidSecretError} right away.
 * @param onEvent Your handler; the context has `id` (stable across retries), `timestamp` and `request`.
 * @param options `tolerance`, `now`, `maxBodyBytes`, `onError`; unknown options throw.
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { createNodeHandler } from '@mountain/webhook-sdk';
 *
 * const handler = createNodeHandler(process.env.MOUNTAIN_WEBHOOK_SECRET ?? '', async (event, { id }) => {
 *   console.log(id, event.data.event.name, event.data.decodedLog);
 * });
 * createServer((req, res) => {
 *   if (req.url === '/webhooks') void handler(req, res);
 *   else res.writeHead(404).end();
 * }).listen(3000);
 * ```
 */
export function createNodeHandler<T = WebhookEvent>(
  secret: WebhookSecrets,
  onEvent: WebhookEventHandler<IncomingMessage, T>,
  options?: ReportingHandlerOptions,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const setup = setupHandler<IncomingMessage>('createNodeHandler', secret, onEvent, options, REPORTING_HANDLER_OPTIONS);
  checkOnError(options?.onError, 'createNodeHandler');
  return async (req, res) => {
    let body: Uint8Array | undefined;
    try {
      body = await readNodeBody(req, setup.maxBodyBytes);
    } catch {
      // The client went away mid-body: there is nobody to answer.
      res.destroy();
      return;
    }
    try {
      const result = await handleDelivery(setup, { method: req.method, body, headers: req.headers, request: req });
      if ('error' in result && result.error) report(options?.onError, result.error);
      writeNodeResult(res, result);
    } catch (error) {
      // Not reachable in normal operation; still answer so the sender retries instead of hanging.
      report(options?.onError, error);
      if (!res.headersSent) writeNodeResult(res, errorResult(500, 'INTERNAL_ERROR', 'Internal error'));
    }
  };
}
