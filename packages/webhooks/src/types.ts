// What the ready-made handlers share: the context and handler of one event, their options and error body.
import type { WebhookEvent } from './events.ts';
import type { VerifyOptions } from './verify.ts';

/**
 * What a ready-made handler passes to your event handler beside the event.
 *
 * @example
 * ```ts
 * import type { WebhookContext } from '@mountain/webhook-sdk';
 *
 * const seen = new Set<string>();
 * function firstTime(context: WebhookContext<unknown>): boolean {
 *   if (seen.has(context.id)) return false; // a retry of a delivery already processed
 *   seen.add(context.id);
 *   return true;
 * }
 * ```
 */
export interface WebhookContext<Req> {
  /** `webhook-id`: the same on every retry and resend of a delivery; de-duplicate on it. */
  id: string;
  /** `webhook-timestamp`: when this attempt was signed. */
  timestamp: Date;
  /** The framework's request object, e.g. to read the URL or a tenant header. */
  request: Req;
}

/**
 * Your code for one verified event. Throw (or reject) to answer 500 so the sender retries later.
 *
 * @example
 * ```ts
 * import type { WebhookEventHandler } from '@mountain/webhook-sdk';
 *
 * const onEvent: WebhookEventHandler<Request> = async (event, { id }) => {
 *   console.log(id, event.data.event.name, event.data.decodedLog);
 * };
 * ```
 */
export type WebhookEventHandler<Req, T = WebhookEvent> = (
  event: T,
  context: WebhookContext<Req>,
) => void | Promise<void>;

/**
 * Options shared by every ready-made handler: the {@link VerifyOptions} and a body size limit.
 *
 * @example
 * ```ts
 * import { createNodeHandler, type HandlerOptions } from '@mountain/webhook-sdk';
 *
 * const options: HandlerOptions = { tolerance: 300, maxBodyBytes: 256 * 1024 };
 * const handler = createNodeHandler(secret, onEvent, options);
 * ```
 */
export interface HandlerOptions extends VerifyOptions {
  /** Larger bodies are refused with 413 before being buffered. Default 1 MiB. */
  maxBodyBytes?: number;
}

/**
 * The JSON body of the handlers' non-2xx answers, the same shape as the Public API's error responses.
 *
 * @example
 * ```ts
 * import type { ErrorBody } from '@mountain/webhook-sdk';
 *
 * const rejected: ErrorBody = {
 *   statusCode: 400,
 *   error: 'Bad Request',
 *   code: 'TIMESTAMP_TOO_OLD',
 *   message: 'Webhook timestamp too old: signed 3600s ago, tolerance is 300s',
 * };
 * ```
 */
export interface ErrorBody {
  statusCode: number;
  error: string;
  code: string;
  message: string;
}
