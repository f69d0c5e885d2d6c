/**
 * Stable codes of verification failures. Branch on `error.code`, not on messages: messages may be reworded.
 *
 * @example
 * ```ts
 * import { type WebhookVerificationErrorCode, verify } from '@mountain/webhook-sdk';
 *
 * try {
 *   await verify(rawBody, headers, secret);
 * } catch (error) {
 *   const code: WebhookVerificationErrorCode | undefined = (error as { code?: WebhookVerificationErrorCode }).code;
 * }
 * ```
 */
export type WebhookVerificationErrorCode =
  | 'MISSING_HEADER'
  | 'INVALID_TIMESTAMP'
  | 'TIMESTAMP_TOO_OLD'
  | 'TIMESTAMP_TOO_NEW'
  | 'NO_MATCHING_SIGNATURE'
  | 'INVALID_SECRET'
  | 'INVALID_PAYLOAD';

/**
 * The base class of every verification failure. Each subclass has a fixed `name` and a stable `code`.
 * The ready-made handlers answer `400` with `{ statusCode, error, code, message }` when one is thrown.
 *
 * @example
 * ```ts
 * import { verify, WebhookVerificationError } from '@mountain/webhook-sdk';
 *
 * try {
 *   const event = await verify(rawBody, headers, secret);
 * } catch (error) {
 *   if (error instanceof WebhookVerificationError) console.warn(`rejected webhook: ${error.code}`);
 *   else throw error;
 * }
 * ```
 */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';

  constructor(
    readonly code: WebhookVerificationErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The three Standard Webhooks headers, lower-case.
 *
 * @example
 * ```ts
 * import { MissingHeaderError, type WebhookHeaderName } from '@mountain/webhook-sdk';
 *
 * const missing: WebhookHeaderName | undefined = error instanceof MissingHeaderError ? error.header : undefined;
 * ```
 */
export type WebhookHeaderName = 'webhook-id' | 'webhook-timestamp' | 'webhook-signature';

/**
 * A required header is absent or empty; `header` says which one.
 *
 * @example
 * ```ts
 * import { MissingHeaderError } from '@mountain/webhook-sdk';
 *
 * if (error instanceof MissingHeaderError) console.warn(`no ${error.header} header`);
 * ```
 */
export class MissingHeaderError extends WebhookVerificationError {
  override name = 'MissingHeaderError';

  constructor(readonly header: WebhookHeaderName) {
    super('MISSING_HEADER', `Missing required header ${header}`);
  }
}

/**
 * `webhook-timestamp` is not a whole number of seconds since the Unix epoch.
 *
 * @example
 * ```ts
 * import { InvalidTimestampError } from '@mountain/webhook-sdk';
 *
 * if (error instanceof InvalidTimestampError) console.warn(`bad timestamp header: ${error.value}`);
 * ```
 */
export class InvalidTimestampError extends WebhookVerificationError {
  override name = 'InvalidTimestampError';

  constructor(readonly value: string) {
    super('INVALID_TIMESTAMP', `Invalid webhook-timestamp header: expected Unix seconds, got ${JSON.stringify(value)}`);
  }
}

/**
 * The delivery was signed more than `tolerance` seconds ago: possibly a replayed request.
 *
 * @example
 * ```ts
 * import { TimestampTooOldError } from '@mountain/webhook-sdk';
 *
 * if (error instanceof TimestampTooOldError) console.warn(`signed at ${error.timestamp}, now ${error.now}`);
 * ```
 */
export class TimestampTooOldError extends WebhookVerificationError {
  override name = 'TimestampTooOldError';

  constructor(
    /** The signed time, Unix seconds. */
    readonly timestamp: number,
    /** The receiver's time, Unix seconds. */
    readonly now: number,
    readonly tolerance: number,
  ) {
    super('TIMESTAMP_TOO_OLD', `Webhook timestamp too old: signed ${now - timestamp}s ago, tolerance is ${tolerance}s`);
  }
}

/**
 * The delivery claims to be signed more than `tolerance` seconds in the future: a clock problem or a forgery.
 *
 * @example
 * ```ts
 * import { TimestampTooNewError } from '@mountain/webhook-sdk';
 *
 * if (error instanceof TimestampTooNewError) console.warn('check the receiver clock (NTP)');
 * ```
 */
export class TimestampTooNewError extends WebhookVerificationError {
  override name = 'TimestampTooNewError';

  constructor(
    /** The signed time, Unix seconds. */
    readonly timestamp: number,
    /** The receiver's time, Unix seconds. */
    readonly now: number,
    readonly tolerance: number,
  ) {
    super(
      'TIMESTAMP_TOO_NEW',
      `Webhook timestamp too new: ${timestamp - now}s in the future, tolerance is ${tolerance}s`,
    );
  }
}

/**
 * No `v1,` entry of `webhook-signature` matches the body signed with the secret: wrong secret, or a modified body.
 *
 * @example
 * ```ts
 * import { NoMatchingSignatureError } from '@mountain/webhook-sdk';
 *
 * if (error instanceof NoMatchingSignatureError) console.warn('wrong secret, or the body was re-serialised');
 * ```
 */
export class NoMatchingSignatureError extends WebhookVerificationError {
  override name = 'NoMatchingSignatureError';

  constructor() {
    super('NO_MATCHING_SIGNATURE', 'No matching signature found');
  }
}

/**
 * The secret is not `whsec_` followed by non-empty standard base64. This is the receiver's configuration, so the
 * ready-made handlers check it when they are created instead of answering requests with it.
 *
 * @example
 * ```ts
 * import { InvalidSecretError, verify } from '@mountain/webhook-sdk';
 *
 * await verify(body, headers, 'not-a-secret').catch((error) => error instanceof InvalidSecretError); // true
 * ```
 */
export class InvalidSecretError extends WebhookVerificationError {
  override name = 'InvalidSecretError';

  constructor(reason: string) {
    super('INVALID_SECRET', `Invalid webhook secret: ${reason}`);
  }
}

/**
 * The signature is valid but the body is not UTF-8 JSON text of an object. The original error is the `cause`.
 *
 * @example
 * ```ts
 * import { InvalidPayloadError } from '@mountain/webhook-sdk';
 *
 * if (error instanceof InvalidPayloadError) console.warn('signed, but not a JSON object', error.cause);
 * ```
 */
export class InvalidPayloadError extends WebhookVerificationError {
  override name = 'InvalidPayloadError';

  constructor(message: string, options?: { cause?: unknown }) {
    super('INVALID_PAYLOAD', `Invalid webhook payload: ${message}`, options);
  }
}

/**
 * Wraps an error thrown by your event handler inside a ready-made handler (the original is the `cause`). It
 * carries `statusCode` 500 so Express's and Fastify's error handlers answer 500 and the sender retries.
 *
 * @example
 * ```ts
 * import { WebhookHandlerError } from '@mountain/webhook-sdk';
 *
 * app.use((error, req, res, next) => {
 *   if (error instanceof WebhookHandlerError) console.error('webhook handler failed', error.cause);
 *   next(error);
 * });
 * ```
 */
export class WebhookHandlerError extends Error {
  override name = 'WebhookHandlerError';
  readonly code = 'HANDLER_FAILED';
  readonly statusCode = 500;

  constructor(cause: unknown) {
    super('The webhook event handler failed', { cause });
  }
}
