import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fastJson from 'fast-json-stringify';
import { compileSerializer, serializerSchema } from '#api/http/serialization.ts';
import { routes } from '#api/routes/index.ts';

const nullable = (schema: object) => ({ anyOf: [schema, { type: 'null' }] });
const uses = (code: string) => /validate_\d+/.test(code);
/** fast-json-stringify's generated code for `schema`: whether it asks Ajv to choose a branch shows in it. */
const code = (schema: unknown) => (fastJson(schema as object, { mode: 'debug' }) as unknown as { code: string }).code;

describe('answer serialization', () => {
  it('writes every operation’s documented example as fast-json-stringify does with the route’s own schema', () => {
    for (const route of routes) {
      const { schema, example } = route.response;
      assert.equal(compileSerializer({ schema })(example), fastJson(schema)(example), route.operationId);
    }
  });

  it('serializes nullable fields without Ajv: null as null, a value as its type says', () => {
    const schema = {
      type: 'object',
      properties: {
        text: nullable({ type: 'string', description: 'a hash' }),
        count: nullable({ type: 'integer' }),
        item: nullable({ type: 'object', properties: { id: { type: 'string' } }, required: ['id'] }),
        list: nullable({ type: 'array', items: nullable({ type: 'string' }) }),
        either: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
        role: {
          anyOf: [
            { type: 'string', const: 'admin' },
            { type: 'string', const: 'reader' },
          ],
          description: 'r',
        },
      },
    };
    const rewritten = serializerSchema(schema) as { properties: Record<string, Record<string, unknown>> };
    for (const field of ['text', 'count', 'item', 'list']) {
      assert.equal(rewritten.properties[field]?.anyOf, undefined, field);
      assert.equal(rewritten.properties[field]?.nullable, true, field);
    }
    assert.equal(rewritten.properties.text?.description, 'a hash');
    assert.deepEqual(rewritten.properties.role, { type: 'string', enum: ['admin', 'reader'], description: 'r' });
    // Not a nullable field: still chosen by Ajv.
    assert.deepEqual(rewritten.properties.either, schema.properties.either);
    const { either: _, ...nullableOnly } = schema.properties;
    assert.equal(uses(code({ ...schema, properties: nullableOnly })), true, 'the route schema as written needs Ajv');
    assert.equal(uses(code(serializerSchema({ ...schema, properties: nullableOnly }))), false);

    const serialize = compileSerializer({ schema });
    const values = [
      { text: null, count: null, item: null, list: null, either: 'a', role: 'admin' },
      { text: '0xab', count: 3, item: { id: 'x' }, list: ['a', null], either: 7, role: 'reader' },
    ];
    for (const value of values) assert.deepEqual(JSON.parse(serialize(value)), value);
  });

  it('writes a wallet’s custody, a union of objects told apart by provider, as the route’s own schema does', () => {
    const route = routes.find((r) => r.operationId === 'get-project-detail');
    assert.ok(route);
    const { schema, example } = route.response;
    const detail = example as { data: { mSystemWalletMainnet: object; mSystemWalletTestnet: object } };
    const custodies = [
      null,
      { provider: 'fireblocks', vaultAccountId: '12' },
      { provider: 'aws-kms', keyArn: 'arn:aws:kms:eu-west-1:111122223333:key/k-1', keyId: 'k-1' },
    ];
    for (const custody of custodies) {
      const wallet = { ...detail.data.mSystemWalletMainnet, custody };
      const value = { ...detail, data: { ...detail.data, mSystemWalletMainnet: wallet } };
      const written = compileSerializer({ schema })(value);
      assert.equal(written, fastJson(schema)(value), JSON.stringify(custody));
      assert.deepEqual(JSON.parse(written).data.mSystemWalletMainnet.custody, custody);
    }
  });

  it('leaves no union of an operation’s answer for fast-json-stringify to choose with Ajv', () => {
    const choosing = routes.filter((route) => uses(code(serializerSchema(route.response.schema))));
    assert.deepEqual(
      choosing.map((route) => route.operationId),
      [],
    );
    assert.equal(routes.filter((route) => uses(code(route.response.schema))).length > 10, true, 'as written');
  });
});
