/** A command line the CLI refuses before it changes anything: printed with the usage hint, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
