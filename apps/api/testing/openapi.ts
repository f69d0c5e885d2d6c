import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

export const OPENAPI_PATH = createRequire(import.meta.url).resolve('@mountain/openapi/public-api-v3.json');

type Operation = { path: string; method: string; responses: Record<string, unknown> };

/** Checks answers against the committed OpenAPI document: the docs promise exactly what the server sends. */
export function createResponseValidator() {
  const document = JSON.parse(readFileSync(OPENAPI_PATH, 'utf8'));
  // Not checked against the JSON Schema meta-schema: the document is no schema (its schemas sit under `paths` and
  // `components`, where a meta-schema does not look), so the check found nothing and cost every test process
  // 70-80 ms. openapi.test.ts lints the document, its schemas included (redocly).
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(document, 'openapi');
  const operations = new Map<string, Operation>();
  for (const [p, methods] of Object.entries(
    document.paths as Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>,
  )) {
    for (const [method, op] of Object.entries(methods))
      operations.set(op.operationId, { path: p, method, responses: op.responses });
  }
  const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

  return {
    operations,
    /** Throws when `body` is not what the document says `operationId` answers with `status`. */
    assertResponse(operationId: string, status: number, body: unknown): void {
      const op = operations.get(operationId);
      if (!op) throw new Error(`No operation ${operationId} in the OpenAPI document`);
      if (!op.responses[String(status)]) {
        throw new Error(
          `${operationId} answered ${status}, which the OpenAPI document does not list: ${JSON.stringify(body)}`,
        );
      }
      const ref = `openapi#/${pointer('paths', op.path, op.method, 'responses', String(status), 'content', 'application/json', 'schema')}`;
      const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
      if (!validate(body)) {
        throw new Error(
          `${operationId} ${status} answer does not match the OpenAPI document: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`,
        );
      }
    },
    /** Throws when `body` is not what the document's `webhooks` section says the webhook of its `type` carries. */
    assertWebhook(body: { type?: unknown }): void {
      const type = String(body.type);
      if (!document.webhooks?.[type]) throw new Error(`No webhook ${type} in the OpenAPI document`);
      const ref = `openapi#/${pointer('webhooks', type, 'post', 'requestBody', 'content', 'application/json', 'schema')}`;
      const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
      if (!validate(body)) {
        throw new Error(`${type} webhook does not match the OpenAPI document: ${ajv.errorsText(validate.errors)}`);
      }
    },
    /** Throws when `body` is not the documented error shape. */
    assertError(body: unknown): void {
      const validate = ajv.getSchema('openapi#/components/schemas/Error');
      if (!validate?.(body)) throw new Error(`Not the error shape: ${JSON.stringify(body)}`);
    },
  };
}
