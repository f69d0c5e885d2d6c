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

/** An error meant for the client: its code comes from the catalogue, so status and message stay consistent. */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly statusCode: number;
  readonly details: FieldError[] | undefined;
  readonly requiredRoles: string[] | undefined;
  /** Extra response headers, e.g. Retry-After. */
  readonly headers: Record<string, string> | undefined;

  constructor(
    readonly code: ErrorCode,
    params: Record<string, string | number> = {},
    options: {
      details?: FieldError[];
      requiredRoles?: string[];
      headers?: Record<string, string>;
      cause?: unknown;
    } = {},
  ) {
    const entry = ERROR_CATALOGUE[code];
    super(
      entry.message.replace(/\{(\w+)\}/g, (_, key: string) => String(params[key] ?? `{${key}}`)),
      { cause: options.cause },
    );
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
