import { BaseError } from '#api/errors/BaseError.ts';
/** A command line the CLI refuses before it changes anything: printed with the usage hint, exit code 2. */
export class UsageError extends BaseError {
  override name = 'UsageError';
  readonly code = 'INTERNAL_ERROR';
}
