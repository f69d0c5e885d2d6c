import { BaseError } from './BaseError.ts';
import { ERROR_CATALOGUE, type ErrorCode, MAX_FIELD_ERRORS, STATUS_TEXT } from './catalogue.ts';

export interface FieldError {
  /** Where the wrong value is: `body`, `querystring` or `headers`, then its JSON path, e.g. `body.networkId`. */
  field: string;
  message: string;
}

/** The one JSON shape of every error response. */
export interface ErrorBody {
  statusCode: number;
  error: string;
  code: ErrorCode;
  message: string;
  details?: FieldError[];
  requiredRoles?: string[];
}

/** The names of the `{placeholders}` of a message template, e.g. `'field' | 'limit'`. */
type Placeholders<T extends string> = T extends `${string}{${infer Name}}${infer Rest}`
  ? Name | Placeholders<Rest>
  : never;

/**
 * The parameters the message of `code` needs: one per placeholder of its template, each required (a code whose
 * template has none takes none). `ErrorCode` itself (a code not known until run time) takes any.
 */
export type ErrorParams<C extends ErrorCode> = ErrorCode extends C
  ? Record<string, string | number>
  : [Placeholders<(typeof ERROR_CATALOGUE)[C]['message']>] extends [never]
    ? Record<string, never>
    : { [Name in Placeholders<(typeof ERROR_CATALOGUE)[C]['message']>]: string | number };

interface ApiErrorOptions {
  details?: FieldError[];
  requiredRoles?: string[];
  headers?: Record<string, string>;
  cause?: unknown;
}

/** What follows the code: its parameters (required when its template has placeholders), then the options. */
type ApiErrorArguments<C extends ErrorCode> = [Placeholders<(typeof ERROR_CATALOGUE)[C]['message']>] extends [never]
  ? [params?: ErrorParams<C>, options?: ApiErrorOptions]
  : [params: ErrorParams<C>, options?: ApiErrorOptions];

/** An error meant for the client: its code comes from the catalogue, so status and message stay consistent. */
export class ApiError<C extends ErrorCode = ErrorCode> extends BaseError {
  override name = 'ApiError';
  readonly statusCode: number;
  readonly details: FieldError[] | undefined;
  readonly requiredRoles: string[] | undefined;
  /** Extra response headers, e.g. Retry-After. */
  readonly headers: Record<string, string> | undefined;

  readonly code: C;

  constructor(code: C, ...[params = {} as ErrorParams<C>, options = {}]: ApiErrorArguments<C>) {
    const entry = ERROR_CATALOGUE[code];
    const values = params as Record<string, string | number | undefined>;
    super(
      entry.message.replace(/\{(\w+)\}/g, (_, key: string) => String(values[key] ?? `{${key}}`)),
      { cause: options.cause },
    );
    this.code = code;
    this.statusCode = entry.status;
    this.details = options.details;
    this.requiredRoles = options.requiredRoles;
    this.headers = options.headers;
  }

  toBody(): ErrorBody {
    return {
      statusCode: this.statusCode,
      error: STATUS_TEXT[this.statusCode] ?? 'Error',
      code: this.code,
      message: this.message,
      ...(this.details ? { details: this.details } : {}),
      ...(this.requiredRoles ? { requiredRoles: this.requiredRoles } : {}),
    };
  }
}

/** A 400 naming the wrong fields: the first MAX_FIELD_ERRORS of them, and how many more there are. */
export function validationError(details: FieldError[]): ApiError {
  const named = details.slice(0, MAX_FIELD_ERRORS);
  const more = details.length - named.length;
  const summary = named.map((d) => `${d.field} ${d.message}`).join('; ') + (more > 0 ? `; and ${more} more` : '');
  return new ApiError('VALIDATION_FAILED', { summary }, { details: named });
}
