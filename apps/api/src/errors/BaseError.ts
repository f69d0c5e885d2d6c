import type { ErrorCode } from './catalogue.ts';

/**
 * The base of every error of the platform's own (viem's `BaseError` is the model): a real `Error` with a fixed
 * `name` and `cause`, carrying the catalogue `code` it stands for. That is the code a client is answered with when
 * the error is translated into an answer (`ApiError`), or `INTERNAL_ERROR` for an error never meant for one.
 * Callers classify errors with `instanceof` of the subclass, never by their `name`.
 */
export abstract class BaseError extends Error {
  abstract override readonly name: string;
  abstract readonly code: ErrorCode;
}
