import AjvModule, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { DataValidationCxt } from 'ajv/dist/types/index.js';
import addFormatsModule from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import type { FieldError } from '#api/errors/ApiError.ts';

/**
 * Two validators: bodies are checked strictly (a "5" is not a 5), while query strings, which are text by
 * nature, are coerced. Neither removes unknown fields: they are reported.
 */
function createAjv(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({ allErrors: true, removeAdditional: false, useDefaults: true, coerceTypes, strict: true });
  addFormats(ajv);
  // Narrower than ajv-formats where its form would reach code that cannot take it: a `uuid` is the plain
  // 8-4-4-4-12 form (not `urn:uuid:…`, which PostgreSQL refuses), and a `uri` must also be one the WHATWG URL
  // parser takes (`http://` or a port above 65535 pass the RFC 3986 pattern but not `new URL`), and a `date-time` one
  // PostgreSQL takes: RFC 3339 allows the year 0000 and UTC offsets up to ±23:59, PostgreSQL neither.
  ajv.addFormat('uuid', /^[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/i);
  const uri = fullFormats.uri as (text: string) => boolean;
  ajv.addFormat('uri', (text: string) => uri(text) && URL.canParse(text));
  const dateTime = fullFormats['date-time'] as { validate: (text: string) => boolean };
  ajv.addFormat('date-time', (text: string) => dateTime.validate(text) && storableTime(text));
  ajv.addKeyword({ keyword: 'example' });
  return ajv;
}

/** Not the year 0000, and a UTC offset under 16 hours: what PostgreSQL's `timestamptz` takes of RFC 3339. */
function storableTime(text: string): boolean {
  const offset = /[+-](\d\d)(?::?\d\d)?$/.exec(text);
  return !text.startsWith('0000') && (offset === null || Number(offset[1]) < 16);
}

// Both packages are CommonJS with a `default` export property; this form works under Node ESM and TypeScript.
const Ajv = AjvModule.default;
const addFormats = addFormatsModule.default;
type Ajv = InstanceType<typeof Ajv>;

const strict = createAjv(false);
const coercing = createAjv(true);

/**
 * A route's validator is compiled on its first request, not when the route is registered: a process pays for the
 * schemas it uses (compiling all of them costs a quarter of a second of CPU), and the first request of a route a few
 * milliseconds. Ajv keeps what it compiled by schema object, so every app built in a process shares them.
 */
export function compileValidator({ schema, httpPart }: { schema: object; httpPart?: string }): Validator {
  if (httpPart === 'body') return onFirstUse(() => withoutNul(strict.compile(schema)));
  return onFirstUse(() => decimalIntegers(schema, coercing.compile(schema)));
}

type Validator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/**
 * Fastify hands a validator that is Ajv's own (it has `schemaEnv`) the request as the parent of the value, so that a
 * coercion may replace the value itself: the wrapper says it is one and passes that on to Ajv's only.
 */
function onFirstUse(compile: () => Validator | ValidateFunction): Validator {
  let compiled: Validator | ValidateFunction | undefined;
  const validate = (data: unknown, parent?: DataValidationCxt) => {
    compiled ??= compile();
    const valid = 'schemaEnv' in compiled ? compiled(data, parent) : compiled(data);
    lazy.errors = compiled.errors;
    return valid as boolean;
  };
  const lazy: Validator & { schemaEnv: true } = Object.assign(validate, { schemaEnv: true as const });
  return lazy;
}

/**
 * Runs `validate` after `check`, whose errors come first and replace the validator's own at the same places (one
 * error a place). In linear time: a 64 KB body can bring 60,000 errors.
 */
function combined(validate: ValidateFunction, check: (data: unknown) => ErrorObject[]): Validator {
  const checked: Validator = (data) => {
    const errors = check(data);
    const valid = validate(data);
    const places = new Set(errors.map((e) => e.instancePath));
    for (const error of valid ? [] : (validate.errors ?? [])) {
      if (places.has(error.instancePath)) continue;
      places.add(error.instancePath);
      errors.push(error);
    }
    checked.errors = errors.length > 0 ? errors : null;
    return errors.length === 0;
  };
  return checked;
}

/**
 * No string in a body may contain NUL (U+0000): PostgreSQL text cannot store it, and no field of the API needs it.
 * Walks the parsed body without recursion, so a deeply nested one cannot exhaust the stack.
 */
function withoutNul(validate: ValidateFunction): Validator {
  return combined(validate, (data) => {
    const errors: ErrorObject[] = [];
    if (typeof data !== 'object' || data === null) return errors;
    const stack: [unknown, string][] = [[data, '']];
    while (stack.length > 0) {
      const [value, path] = stack.pop() as [unknown, string];
      if (typeof value === 'string') {
        if (value.includes('\u0000')) {
          errors.push({
            instancePath: path,
            schemaPath: '#',
            keyword: 'nul',
            params: {},
            message: 'must not contain NUL (\\u0000) characters',
          });
        }
      } else if (value !== null && typeof value === 'object') {
        for (const [key, child] of Object.entries(value)) {
          stack.push([child, `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`]);
        }
      }
    }
    return errors.reverse();
  });
}

/**
 * Query-string integers must be written in decimal digits. Coercion alone takes anything `Number()` takes:
 * `Infinity` (which then passes `minimum`), `0x10`, `1e3`, ` 5`.
 */
function decimalIntegers(schema: object, validate: ValidateFunction): Validator {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  const integers = Object.keys(properties).filter((name) => properties[name]?.type === 'integer');
  if (integers.length === 0) return validate;
  return combined(validate, (data) => {
    const values = (data ?? {}) as Record<string, unknown>;
    return integers
      .filter((name) => typeof values[name] === 'string' && !/^-?\d+$/.test(values[name]))
      .map((name) => ({
        instancePath: `/${name}`,
        schemaPath: `#/properties/${name}/type`,
        keyword: 'type',
        params: { type: 'integer' },
        message: 'must be an integer written in decimal digits',
      }));
  });
}

/** Turns validation errors into one entry per wrong field, with the field's path (`body.formattedAbi[2]`). */
export function fieldErrors(errors: FastifySchemaValidationError[], context: string): FieldError[] {
  const seen = new Map<string, FieldError>();
  for (const error of errors as ErrorObject[]) {
    const path = error.instancePath
      .split('/')
      .slice(1)
      .map((segment) =>
        /^\d+$/.test(segment) ? `[${segment}]` : `.${segment.replace(/~1/g, '/').replace(/~0/g, '~')}`,
      )
      .join('');
    let field = `${context}${path}`;
    let message = error.message ?? 'is invalid';
    if (error.keyword === 'required') {
      field += `.${error.params.missingProperty}`;
      message = 'is required';
    } else if (error.keyword === 'additionalProperties') {
      field += `.${error.params.additionalProperty}`;
      message = 'is not an allowed field';
    } else if (error.keyword === 'enum') {
      message = `must be one of ${(error.params.allowedValues as unknown[]).join(', ')}`;
    } else if (error.keyword === 'const' || error.keyword === 'anyOf') {
      // A union's branches each report; the field-level summary below is clearer than any single one.
      if (seen.has(field)) continue;
      message = 'is not one of the allowed values';
    }
    if (!seen.has(field) || error.keyword === 'anyOf') seen.set(field, { field, message });
  }
  return [...seen.values()];
}
