import { WebhookHandlerError, WebhookVerificationError } from './errors.ts';
import { assertFunction, assertKnownOptions, assertNonNegative } from './options.ts';
import { parseSecrets, type WebhookSecrets } from './secret.ts';
import type { ErrorBody, HandlerOptions, WebhookEventHandler } from './types.ts';
import { checkVerifyOptions, VERIFY_OPTIONS, verifyDelivery, type WebhookRequestHeaders } from './verify.ts';

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
  keys: Uint8Array<ArrayBuffer>[];
  onEvent: WebhookEventHandler<Req, unknown>;
  options: HandlerOptions;
  maxBodyBytes: number;
}

export function setupHandler<Req>(
  where: string,
  secret: WebhookSecrets,
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
    keys: parseSecrets(secret),
    onEvent: onEvent as WebhookEventHandler<Req, unknown>,
    options: handlerOptions,
    maxBodyBytes: handlerOptions.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
  };
}

export function checkOnError(onError: unknown, where: string): void {
  assertFunction(onError, 'onError', where);
}

/**
 * Verifies one request and runs the event handler; the adapters only translate the result to their framework.
 * `body` is `undefined` when the adapter stopped reading it at `maxBodyBytes`; a larger body answers 413 too.
 */
export async function handleDelivery<Req>(
  setup: HandlerSetup<Req>,
  input: {
    method: string | undefined;
    body: string | Uint8Array | undefined;
    headers: WebhookRequestHeaders;
    request: Req;
  },
): Promise<DeliveryResult> {
  if (input.body === undefined || input.body.length > setup.maxBodyBytes) return tooLarge(setup.maxBodyBytes);
  if (input.method !== undefined && input.method.toUpperCase() !== 'POST') {
    return methodNotAllowed();
  }
  let delivery: Awaited<ReturnType<typeof verifyDelivery<unknown>>>;
  try {
    delivery = await verifyDelivery<unknown>(input.body, input.headers, setup.keys, setup.options);
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
