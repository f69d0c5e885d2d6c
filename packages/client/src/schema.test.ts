// The generated types and the method table follow the committed OpenAPI document: regenerating changes nothing,
// and every operation of the document has its method, with the document's HTTP method and path.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { OPENAPI_FILE, renderSchema, SCHEMA_FILE } from '../scripts/generate.ts';
import { MountainClient } from './index.ts';
import { OPERATIONS } from './operations.ts';

const camelCase = (id: string) => id.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase());

describe('generated schema', () => {
  it('src/generated/schema.ts is what openapi-typescript makes of the current OpenAPI document', async () => {
    const committed = readFileSync(SCHEMA_FILE, 'utf8');
    assert.match(committed.split('\n')[0] ?? '', /^\/\/ @generated /);
    assert.ok(
      committed === (await renderSchema()),
      'src/generated/schema.ts is stale: run `npm run generate -w @mountain/public-api-client` and commit it',
    );
  });

  it('every operation of the OpenAPI document has a method named after its operationId', () => {
    const document = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    const inDocument = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({
        name: camelCase(operation.operationId),
        route: { operationId: operation.operationId, method: method.toUpperCase(), path },
      })),
    );
    assert.ok(inDocument.length >= 15);
    for (const { name, route } of inDocument) {
      // An operation that takes no credentials (exchange-console-link) is a static method: no client has to exist.
      const method =
        MountainClient.prototype[name as keyof MountainClient] ?? MountainClient[name as keyof typeof MountainClient];
      assert.equal(typeof method, 'function', `method ${name}`);
      assert.deepEqual(OPERATIONS[name as keyof typeof OPERATIONS], route, `route of ${name}`);
    }
    assert.deepEqual(
      Object.keys(OPERATIONS).sort(),
      inDocument.map((o) => o.name).sort(),
      'no method without operation',
    );
  });
});
