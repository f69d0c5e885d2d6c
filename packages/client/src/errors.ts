// One base error for every failure of a call, one subclass per kind (like stripe-node and svix), with a fixed
// `name` so that it survives minification and structured cloning; and which of them a non-2xx answer becomes.

/**
 * One wrong field of a `400 VALIDATION_FAILED` answer: `field` is its path (`body.networkId`, `querystring.page`).
 *
 * @example
 * ```ts
 * import { type FieldError, ValidationError } from '@mountain/public-api-client';
 *
 * const fields: FieldError[] = error instanceof ValidationError ? error.details : [];
 * ```
 */
export interface FieldError {
  field: string;
  message: string;
}

/** What the errors are built from: the answer, or its absence. */
export interface ErrorInit {
  status?: number | undefined;
  code: string;
  message: string;
  requestId?: string | undefined;
  body?: unknown;
  cause?: unknown;
}

/**
 * The base of every error the client throws for a failed call. `status` is the HTTP status (absent when no
 * answer came), `code` the API's stable error code (`VALIDATION_FAILED`, `NOT_FOUND`…; `CONNECTION_ERROR` or
 * `TIMEOUT` without an answer), `requestId` the `x-request-id` to quote to support, `body` the answer's body as
 * received (parsed JSON, else text).
 *
 * @example
 * ```ts
 * import { MountainClient, MountainError } from '@mountain/public-api-client';
 *
 * const client = new MountainClient({ apiKey: 'mtn_test_…' });
 * try {
 *   await client.getContracts();
 * } catch (error) {
 *   if (error instanceof MountainError) console.error(error.status, error.code, error.message, error.requestId);
 *   else throw error;
 * }
 * ```
 */
export class MountainError extends Error {
  override name = 'MountainError';
  readonly status: number | undefined;
  readonly code: string;
  readonly requestId: string | undefined;
  readonly body: unknown;

  constructor(init: ErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.body = init.body;
  }
}

/**
 * `400`: the request was refused before anything happened. `details` lists each wrong field (empty for codes
 * such as `INVALID_JSON` or `PROJECT_REQUIRED`).
 *
 * @example
 * ```ts
 * import { ValidationError } from '@mountain/public-api-client';
 *
 * try {
 *   await client.importContract({ networkId: 1337, address: '0x1234', formattedAbi: [] });
 * } catch (error) {
 *   if (error instanceof ValidationError) for (const { field, message } of error.details) console.log(field, message);
 * }
 * ```
 */
export class ValidationError extends MountainError {
  override name = 'ValidationError';
  readonly details: FieldError[];

  constructor(init: ErrorInit & { details?: FieldError[] | undefined }) {
    super(init);
    this.details = init.details ?? [];
  }
}

/**
 * `401`: no credentials, or an unknown API key, or an invalid or expired access token (see `code`).
 *
 * @example
 * ```ts
 * import { AuthenticationError } from '@mountain/public-api-client';
 *
 * if (error instanceof AuthenticationError && error.code === 'ACCESS_TOKEN_EXPIRED') await renewToken();
 * ```
 */
export class AuthenticationError extends MountainError {
  override name = 'AuthenticationError';
}

/**
 * `403`: the credentials may not call this operation. `requiredRoles` lists the roles that may (empty when the
 * refusal is not about roles, e.g. `ACCESS_TOKEN_REQUIRED`).
 *
 * @example
 * ```ts
 * import { PermissionError } from '@mountain/public-api-client';
 *
 * if (error instanceof PermissionError) console.log(`ask for one of: ${error.requiredRoles.join(', ')}`);
 * ```
 */
export class PermissionError extends MountainError {
  override name = 'PermissionError';
  readonly requiredRoles: string[];

  constructor(init: ErrorInit & { requiredRoles?: string[] | undefined }) {
    super(init);
    this.requiredRoles = init.requiredRoles ?? [];
  }
}

/**
 * `404`: the object is not in your project (`NOT_FOUND`), or no operation is served at that address
 * (`ROUTE_NOT_FOUND`, e.g. a wrong `baseUrl`).
 *
 * @example
 * ```ts
 * import { NotFoundError } from '@mountain/public-api-client';
 *
 * const transaction = await client.getTransaction({ transactionId }).catch((error) => {
 *   if (error instanceof NotFoundError) return undefined;
 *   throw error;
 * });
 * ```
 */
export class NotFoundError extends MountainError {
  override name = 'NotFoundError';
}

/**
 * `409`: the request conflicts with what exists, e.g. a contract imported twice, or an idempotency key reused
 * with a different body.
 *
 * @example
 * ```ts
 * import { ConflictError } from '@mountain/public-api-client';
 *
 * if (error instanceof ConflictError) console.log(`already there: ${error.message}`);
 * ```
 */
export class ConflictError extends MountainError {
  override name = 'ConflictError';
}

/**
 * `429`: too many requests, after the client's own retries. `retryAfter` is the server's `Retry-After` in
 * seconds, when it sent one.
 *
 * @example
 * ```ts
 * import { RateLimitError } from '@mountain/public-api-client';
 *
 * if (error instanceof RateLimitError) console.log(`slow down for ${error.retryAfter ?? 1} s`);
 * ```
 */
export class RateLimitError extends MountainError {
  override name = 'RateLimitError';
  readonly retryAfter: number | undefined;

  constructor(init: ErrorInit & { retryAfter?: number | undefined }) {
    super(init);
    this.retryAfter = init.retryAfter;
  }
}

/**
 * `5xx`: the server failed (`INTERNAL_ERROR`, `SERVICE_UNAVAILABLE`…, after the client's retries) or does not
 * serve the operation (`501 NOT_IMPLEMENTED`, never retried).
 *
 * @example
 * ```ts
 * import { ServerError } from '@mountain/public-api-client';
 *
 * if (error instanceof ServerError) console.error(`server failed, request id ${error.requestId}`);
 * ```
 */
export class ServerError extends MountainError {
  override name = 'ServerError';
}

/**
 * No answer: the connection failed (refused, reset, DNS…), after the client's retries. `cause` is the error
 * `fetch` threw. `status` is undefined and `code` is `CONNECTION_ERROR`.
 *
 * @example
 * ```ts
 * import { ConnectionError } from '@mountain/public-api-client';
 *
 * if (error instanceof ConnectionError) console.error('API unreachable', error.cause);
 * ```
 */
export class ConnectionError extends MountainError {
  override name = 'ConnectionError';
}

/**
 * No answer within the `timeout` (per attempt), after the client's retries. `code` is `TIMEOUT`. A kind of
 * {@link ConnectionError}, so catching that one catches both.
 *
 * @example
 * ```ts
 * import { TimeoutError } from '@mountain/public-api-client';
 *
 * const contracts = await client.getContracts({ timeout: 2_000 }).catch((error) => {
 *   if (error instanceof TimeoutError) return undefined;
 *   throw error;
 * });
 * ```
 */
export class TimeoutError extends ConnectionError {
  override name = 'TimeoutError';
}

/** The error for a non-2xx answer: the class by status, the rest from the API's error body. @internal */
export function errorFromResponse(
  status: number,
  text: string,
  requestId: string | undefined,
  retryAfterMs?: number,
): MountainError {
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not the API's JSON error (a proxy's HTML page, say): keep the text.
  }
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const init: ErrorInit = {
    status,
    code: typeof fields.code === 'string' ? fields.code : `HTTP_${status}`,
    message: typeof fields.message === 'string' ? fields.message : `HTTP ${status}`,
    requestId,
    body,
  };
  if (status === 400) return new ValidationError({ ...init, details: list<FieldError>(fields.details) });
  if (status === 401) return new AuthenticationError(init);
  if (status === 403) return new PermissionError({ ...init, requiredRoles: list<string>(fields.requiredRoles) });
  if (status === 404) return new NotFoundError(init);
  if (status === 409) return new ConflictError(init);
  if (status === 429) {
    const retryAfter = retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000);
    return new RateLimitError({ ...init, retryAfter });
  }
  if (status >= 500) return new ServerError(init);
  return new MountainError(init);
}

function list<T>(value: unknown): T[] | undefined {
  return Array.isArray(value) ? (value as T[]) : undefined;
}
