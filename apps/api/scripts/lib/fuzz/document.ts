// The committed OpenAPI document as the fuzzer reads it: each operation with its body and query schemas
// (`$ref`s resolved), and the oracle that says, as the document does, whether a body or query string is valid.
import { readFileSync } from 'node:fs';
import AjvModule, { type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { API_PREFIX } from '#api/http/appDeps.ts';
import { OPENAPI_PATH } from '#api-testing/openapi.ts';

const Ajv = AjvModule.default;
const addFormats = addFormatsModule.default;

export interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  default?: unknown;
  $ref?: string;
}

export interface Parameter {
  name: string;
  required: boolean;
  schema: Schema;
}

export interface Operation {
  operationId: string;
  method: string;
  /** Full path, with the API prefix. */
  path: string;
  body?: Schema;
  query: Parameter[];
  bearerOnly: boolean;
}

/** Every operation of the committed OpenAPI document, with `$ref`s resolved. */
export function loadOperations(): Operation[] {
  const document = JSON.parse(readFileSync(OPENAPI_PATH, 'utf8'));
  const resolve = (schema: Schema): Schema => {
    if (schema.$ref) {
      const name = schema.$ref.replace('#/components/schemas/', '');
      return resolve(document.components.schemas[name]);
    }
    const out: Schema = { ...schema };
    if (schema.properties)
      out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, resolve(v)]));
    if (schema.items) out.items = resolve(schema.items);
    return out;
  };
  const operations: Operation[] = [];
  type DocumentOperation = {
    operationId: string;
    requestBody?: { content?: Record<string, { schema?: Schema }> };
    parameters?: (Parameter & { in: string })[];
    security?: object[];
  };
  for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, DocumentOperation>>)) {
    for (const [method, op] of Object.entries(methods)) {
      const body = op.requestBody?.content?.['application/json']?.schema;
      operations.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        path: `${API_PREFIX}${path}`,
        ...(body ? { body: resolve(body) } : {}),
        query: (op.parameters ?? [])
          .filter((p) => p.in === 'query')
          .map((p) => ({ name: p.name, required: p.required, schema: resolve(p.schema) })),
        bearerOnly: (op.security ?? document.security).every((s: object) => 'BearerAuth' in s && !('ApiKeyAuth' in s)),
      });
    }
  }
  return operations;
}

// ─── The oracle: what the document says is valid ─────────────────────────────────────────────────────────────────

/** Bodies strictly (no coercion), query strings coerced from text (docs: operations/design-decisions.md, Errors). */
export function createOracle(operations: Operation[]) {
  const make = (coerceTypes: boolean) => {
    const ajv = new Ajv({ strict: false, allErrors: false, coerceTypes, useDefaults: true });
    addFormats(ajv);
    return ajv;
  };
  const strict = make(false);
  const coercing = make(true);
  const body = new Map<string, ValidateFunction>();
  const query = new Map<string, ValidateFunction>();
  for (const op of operations) {
    if (op.body) body.set(op.operationId, strict.compile(op.body));
    query.set(
      op.operationId,
      coercing.compile({
        type: 'object',
        properties: Object.fromEntries(op.query.map((p) => [p.name, p.schema])),
        required: op.query.filter((p) => p.required && p.schema.default === undefined).map((p) => p.name),
      }),
    );
  }
  return {
    /** Whether the body text is JSON the document accepts. */
    bodyValid(operationId: string, text: string): boolean {
      const validate = body.get(operationId);
      if (!validate) return true;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return false;
      }
      return validate(value);
    },
    queryValid(operationId: string, values: Record<string, string | string[]>): boolean {
      return (query.get(operationId) as ValidateFunction)(structuredClone(values));
    },
  };
}

export type Oracle = ReturnType<typeof createOracle>;
