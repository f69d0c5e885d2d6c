import AjvModule, { type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import type { FieldError } from '#api/errors/ApiError.ts';

/**
 * Two validators: bodies are checked strictly (a "5" is not a 5), while query strings, which are text by
 * nature, are coerced. Neither removes unknown fields: they are reported.
 */
function createAjv(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({ allErrors: true, removeAdditional: false, useDefaults: true, coerceTypes, strict: true });
  addFormats(ajv);
  ajv.addKeyword({ keyword: 'example' });
  return ajv;
}

// Both packages are CommonJS with a `default` export property; this form works under Node ESM and TypeScript.
const Ajv = AjvModule.default;
const addFormats = addFormatsModule.default;
type Ajv = InstanceType<typeof Ajv>;

const strict = createAjv(false);
const coercing = createAjv(true);

export function compileValidator({ schema, httpPart }: { schema: object; httpPart?: string }) {
  return (httpPart === 'body' ? strict : coercing).compile(schema);
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
