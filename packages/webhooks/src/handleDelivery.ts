import { WebhookHandlerError, WebhookVerificationError } from './errors.ts';
import { assertFunction, assertKnownOptions, assertNonNegative } from './options.ts';
import { parseSecret } from './secret.ts';
import type { WebhookEvent } from './types.ts';
import {
  checkVerifyOptions,
  VERIFY_OPTIONS,
  type VerifyOptions,
  verifyDelivery,
  type WebhookRequestHeaders,
} from './verify.ts';

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

export type DeliveryResult =
  | { status: 204 }
  | { status: 400 | 405 | 413 | 500; body: ErrorBody; headers?: Record<string, string>; error?: WebhookHandlerError };

export const HANDLER_OPTIONS = [...VERIFY_OPTIONS, 'maxBodyBytes'] as const;
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

const STATUS_TEXT = {
  400: 'Bad Request',
  405: 'Method Not Allowed',
  413: 'Payload Too Large',
  500: 'Internal Server Error',
} as const;

export function errorResult(
  status: keyof typeof STATUS_TEXT,
  code: string,
  message: string,
  extra: { headers?: Record<string, string>; error?: WebhookHandlerError } = {},
): DeliveryResult {
  return { status, body: { statusCode: status, error: STATUS_TEXT[status], code, message }, ...extra };
}

export function tooLarge(limit: number): DeliveryResult {
  return errorResult(413, 'PAYLOAD_TOO_LARGE', `The webhook body is larger than ${limit} bytes`, {
    headers: { connection: 'close' },
  });
}

export function methodNotAllowed(): DeliveryResult {
  return errorResult(405, 'METHOD_NOT_ALLOWED', 'Webhooks are delivered with POST', { headers: { allow: 'POST' } });
}

/** A handler's checked configuration: built once when the handler is created, so mistakes throw at start-up. */
export interface HandlerSetup<Req> {
  key: Uint8Array<ArrayBuffer>;
  onEvent: WebhookEventHandler<Req, unknown>;
  options: HandlerOptions;
  maxBodyBytes: number;
}

export function setupHandler<Req>(
  where: string,
  secret: string,
  onEvent: WebhookEventHandler<Req, never>,
  options: object | undefined,
  allowed: readonly string[],
): HandlerSetup<Req> {
  assertKnownOptions(options, allowed, where);
  const handlerOptions = (options ?? {}) as HandlerOptions;
  checkVerifyOptions(handlerOptions, where);
  assertNonNegative(handlerOptions.maxBodyBytes, 'maxBodyBytes', where);
  if (typeof onEvent !== 'function') throw new TypeError(`${where}: onEvent must be a function`);
  return {
    // A bad secret is the receiver's configuration, not the sender's fault: fail now, not with a 400 per request.
    key: parseSecret(secret),
    onEvent: onEvent as WebhookEventHandler<Req, unknown>,
    options: handlerOptions,
    maxBodyBytes: handlerOptions.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
  };
}

export function checkOnError(onError: unknown, where: string): void {
  assertFunction(onError, 'onError', where);
}

/** Verifies one request and runs the event handler; the adapters only translate the result to their framework. */
export async function handleDelivery<Req>(
  setup: HandlerSetup<Req>,
  input: { method: string | undefined; body: string | Uint8Array; headers: WebhookRequestHeaders; request: Req },
): Promise<DeliveryResult> {
  if (input.method !== undefined && input.method.toUpperCase() !== 'POST') {
    return methodNotAllowed();
  }
  let delivery: Awaited<ReturnType<typeof verifyDelivery<unknown>>>;
  try {
    delivery = await verifyDelivery<unknown>(input.body, input.headers, setup.key, setup.options);
  } catch (error) {
    if (error instanceof WebhookVerificationError) return errorResult(400, error.code, error.message);
    throw error;
  }
  try {
    await setup.onEvent(delivery.payload, {
      id: delivery.id,
      timestamp: new Date(delivery.timestamp * 1000),
      request: input.request,
    });
  } catch (cause) {
    // Never echo the handler's message: it may hold internal details. The sender only needs "retry later".
    const error = new WebhookHandlerError(cause);
    return errorResult(500, error.code, error.message, { error });
  }
  return { status: 204 };
}
