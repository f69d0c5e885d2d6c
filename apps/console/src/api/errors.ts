import { MountainError, ValidationError } from '@mountain/public-api-client';

/** What a person reads when a call failed: the API's message and its code, or what went wrong on the way. */
export function messageOf(error: unknown): string {
  if (error instanceof MountainError) return `${error.message} (${error.code})`;
  return error instanceof Error ? error.message : String(error);
}

/**
 * The API's field errors by field, the form's own names: `body.formattedAbi[2]` becomes `formattedAbi[2]`, so each
 * shows beside its field.
 */
export function fieldErrorsOf(error: unknown): Record<string, string> {
  if (!(error instanceof ValidationError)) return {};
  return Object.fromEntries(error.details.map((d) => [d.field.replace(/^(body|querystring)\./, ''), d.message]));
}

/** Field errors that match none of the form's fields: shown above the form, so none is lost. */
export function otherErrors(errors: Record<string, string>, fields: string[]): string[] {
  return Object.entries(errors)
    .filter(([field]) => !fields.some((f) => field === f || field.startsWith(`${f}[`) || field.startsWith(`${f}.`)))
    .map(([field, message]) => `${field}: ${message}`);
}
