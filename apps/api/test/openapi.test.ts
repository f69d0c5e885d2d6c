import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { REPO_ROOT } from '#api/config/config.ts';
import { ERROR_CATALOGUE } from '#api/errors/catalogue.ts';
import { generatedFiles } from '#api/openapi/generatedFiles.ts';
import { OPENAPI_PATH } from '#api-testing/openapi.ts';

const SPEC_OPERATIONS = {
  'get-projects': 'GET /project/get-projects',
  'get-project-detail': 'GET /project/get-project-detail',
  'create-subscription': 'POST /event-notifier/create-subscription',
  'get-subscriptions': 'GET /event-notifier/get-subscriptions',
  'update-subscription-webhook': 'POST /event-notifier/update-subscription-webhook',
  'get-records': 'POST /event-notifier/get-records',
  'resend-failed-webhook': 'POST /event-notifier/resend-failed-webhook',
  'get-contracts': 'GET /contract',
  'import-contract': 'POST /contract/import-contract',
  'activate-contract-function': 'POST /contract/activate-contract-function',
  'deactivate-contract-function': 'POST /contract/deactivate-contract-function',
  'get-contract-activated-functions': 'POST /contract/get-contract-activated-functions',
  'execute-transaction': 'POST /transaction/execute-transaction',
  'get-transaction': 'GET /transaction/get-transaction',
  'get-transactions': 'GET /transaction/get-transactions',
};
/** Operations beyond the spec's, additive: the developer console's. */
const CONSOLE_OPERATIONS = {
  'get-project-members': 'GET /project/get-project-members',
  'rotate-api-key': 'POST /project/rotate-api-key',
  'get-statistics': 'GET /project/get-statistics',
  'get-wallet-balances': 'GET /project/get-wallet-balances',
  'exchange-console-link': 'POST /console/exchange-console-link',
  'exchange-api-key': 'POST /auth/exchange-api-key',
  'renew-access-token': 'POST /auth/renew-access-token',
  'revoke-access-token': 'POST /auth/revoke-access-token',
  'update-subscription-scan': 'POST /event-notifier/update-subscription-scan',
  'call-contract-function': 'POST /contract/call-contract-function',
  'speed-up-transaction': 'POST /transaction/speed-up-transaction',
  'cancel-transaction': 'POST /transaction/cancel-transaction',
};

/** The operations added beside the specification's (DESIGN §7). */
const ADDED_OPERATIONS = {
  'create-webhook-endpoint': 'POST /webhook/create-webhook-endpoint',
  'get-webhook-endpoints': 'GET /webhook/get-webhook-endpoints',
  'update-webhook-endpoint': 'POST /webhook/update-webhook-endpoint',
  'delete-webhook-endpoint': 'POST /webhook/delete-webhook-endpoint',
  'rotate-webhook-endpoint-secret': 'POST /webhook/rotate-webhook-endpoint-secret',
  'get-webhook-messages': 'GET /webhook/get-webhook-messages',
  'get-webhook-attempts': 'GET /webhook/get-webhook-attempts',
  'replay-webhook-messages': 'POST /webhook/replay-webhook-messages',
  'rotate-subscription-webhook-secret': 'POST /event-notifier/rotate-subscription-webhook-secret',
  'delete-subscription': 'POST /event-notifier/delete-subscription',
  'update-subscription': 'POST /event-notifier/update-subscription',
  'rewind-subscription': 'POST /event-notifier/rewind-subscription',
  'add-system-wallets': 'POST /project/add-system-wallets',
};

const document = JSON.parse(readFileSync(OPENAPI_PATH, 'utf8'));
const operations = Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([p, methods]) =>
  Object.entries(methods).map(([method, op]) => ({ path: p, method: method.toUpperCase(), op })),
);

describe('generated files', () => {
  it('are committed exactly as `npm run openapi` writes them (no drift)', () => {
    for (const [file, content] of generatedFiles()) {
      const relative = path.relative(REPO_ROOT, file);
      assert.ok(existsSync(file), `${relative} is missing: run npm run openapi`);
      assert.equal(readFileSync(file, 'utf8'), content, `${relative} is stale: run npm run openapi and commit it`);
      assert.match(content, /@generated/, `${relative} is not marked @generated`);
    }
  });

  it('the error table on the docs site lists every code of the catalogue', () => {
    const table = readFileSync(path.join(REPO_ROOT, 'apps/docs/docs/_generated/_error-codes.mdx'), 'utf8');
    for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
      assert.match(table, new RegExp(`\\| \`${code}\` \\| ${entry.status} \\|`), `${code} is missing from the docs`);
    }
  });
});

describe('OpenAPI document', () => {
  it('is titled "Public API for Developers", version 3.0, OpenAPI 3.1', () => {
    assert.equal(document.info.title, 'Public API for Developers');
    assert.equal(document.info.version, '3.0');
    assert.equal(document.openapi, '3.1.0');
  });

  it('declares exactly the 15 operations of the spec, the console’s and the webhooks’, at their paths', () => {
    const found = Object.fromEntries(operations.map(({ path: p, method, op }) => [op.operationId, `${method} ${p}`]));
    assert.deepEqual(found, { ...SPEC_OPERATIONS, ...CONSOLE_OPERATIONS, ...ADDED_OPERATIONS });
  });

  it('describes every operation fully: tag, summary, description, roles, security, examples, errors', () => {
    for (const { op } of operations) {
      const id = op.operationId;
      assert.ok(['Project', 'Event Notifier', 'Contract', 'Transaction', 'Webhook'].includes(op.tags[0]), id);
      assert.ok(op.summary && op.description.length > 20, `${id} summary/description`);
      assert.ok(Array.isArray(op['x-required-roles']), `${id} x-required-roles`);
      // Only the exchange of a console sign-in link needs no credentials: the link is one.
      assert.ok(op.security.length > 0 || id === 'exchange-console-link', `${id} security`);
      if (op.requestBody) assert.ok(op.requestBody.content['application/json'].example, `${id} request example`);
      const success = Object.keys(op.responses).filter((s) => s.startsWith('2'));
      assert.equal(success.length, 1, `${id} has one success status`);
      assert.ok(op.responses[success[0] as string].content['application/json'].example, `${id} response example`);
      for (const status of ['401', '500']) assert.ok(op.responses[status], `${id} documents ${status}`);
    }
  });

  it("has x-required-roles from SPEC §6, with the event notifier's writes for writers only", () => {
    const roles = Object.fromEntries(operations.map(({ op }) => [op.operationId, op['x-required-roles'].join(',')]));
    const writers = [
      'import-contract',
      'activate-contract-function',
      'deactivate-contract-function',
      'execute-transaction',
      'speed-up-transaction',
      'cancel-transaction',
      'create-subscription',
      'update-subscription-webhook',
      'update-subscription-scan',
      'resend-failed-webhook',
      'create-webhook-endpoint',
      'update-webhook-endpoint',
      'delete-webhook-endpoint',
      'rotate-webhook-endpoint-secret',
      'replay-webhook-messages',
      'rotate-subscription-webhook-secret',
      'delete-subscription',
      'update-subscription',
      'rewind-subscription',
    ];
    for (const [id, value] of Object.entries(roles)) {
      if (id === 'get-projects') assert.equal(value, '', 'get-projects is access-token only');
      else if (id === 'exchange-console-link') assert.equal(value, '', 'exchange-console-link needs no credentials');
      else if (id === 'rotate-api-key' || id === 'add-system-wallets')
        assert.equal(value, 'admin', `${id} is for admins`);
      else if (id === 'exchange-api-key')
        assert.equal(value, 'admin', 'exchange-api-key: the key, which acts as admin');
      else if (id === 'renew-access-token' || id === 'revoke-access-token') assert.equal(value, '', `${id}: its token`);
      else assert.equal(value, writers.includes(id) ? 'admin,editor' : 'admin,editor,reader', id);
    }
    const getProjects = operations.find(({ op }) => op.operationId === 'get-projects')?.op;
    assert.deepEqual(getProjects.security, [{ BearerAuth: [] }]);
    const security = (id: string) => operations.find(({ op }) => op.operationId === id)?.op.security;
    assert.deepEqual(security('exchange-api-key'), [{ ApiKeyAuth: [] }]);
    assert.deepEqual(security('renew-access-token'), [{ BearerAuth: [] }]);
    assert.deepEqual(security('revoke-access-token'), [{ BearerAuth: [] }]);
  });

  it('every example validates against its own schema', () => {
    const ajv = new Ajv2020Module.default({ strict: false, allErrors: true });
    addFormatsModule.default(ajv);
    // An example shows only what the schema declares: a field it does not know is a mistake in the example.
    const closed = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(closed);
      if (!node || typeof node !== 'object') return node;
      const copy = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, closed(v)]));
      if ('properties' in copy && !('additionalProperties' in copy)) copy.additionalProperties = false;
      return copy;
    };
    ajv.addSchema(closed(document) as object, 'openapi');
    // Inline schemas point into the document (`#/components/…`): make those references absolute.
    const check = (schema: object, value: unknown, where: string) => {
      const validate = ajv.compile(
        closed(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'))) as object,
      );
      assert.ok(validate(value), `${where}: ${ajv.errorsText(validate.errors)}`);
    };
    for (const { op } of operations) {
      const id = op.operationId;
      const body = op.requestBody?.content['application/json'];
      if (body) check(body.schema, body.example, `${id} request`);
      for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
        const media = response.content['application/json'];
        const examples =
          media.example !== undefined ? [media.example] : Object.values(media.examples).map((e: any) => e.value);
        for (const example of examples) check(media.schema, example, `${id} ${status}`);
      }
    }
  });

  it("shows each error's example answer with the code's own words: every placeholder filled, no reason borrowed", () => {
    // A placeholder an example cannot fill from the operation (its roles, its resource…) is the code's own: the
    // catalogue gives its example.
    for (const [code, entry] of Object.entries(ERROR_CATALOGUE) as [string, { message: string; example?: object }][]) {
      if (entry.message.includes('{reason}'))
        assert.ok(entry.example && 'reason' in entry.example, `${code}: the catalogue gives no example reason`);
    }
    const codesOfMessage = new Map<string, Set<string>>();
    for (const { op } of operations) {
      type Examples = { content: { 'application/json': { examples?: Record<string, { value: unknown }> } } };
      for (const response of Object.values(op.responses as Record<string, Examples>)) {
        for (const example of Object.values(response.content['application/json'].examples ?? {})) {
          const { code, message } = example.value as { code: string; message: string };
          assert.doesNotMatch(message, /\{\w+\}/, `${op.operationId} ${code}: ${message}`);
          const template = ERROR_CATALOGUE[code as keyof typeof ERROR_CATALOGUE].message;
          const fixed = template.split(/\{\w+\}/).filter(Boolean);
          for (const part of fixed) assert.ok(message.includes(part), `${op.operationId} ${code}: ${message}`);
          const reason = fixed.reduce((rest, part) => rest.replace(part, '\u0000'), message);
          if (template.includes('{reason}'))
            codesOfMessage.set(reason, (codesOfMessage.get(reason) ?? new Set()).add(code));
        }
      }
    }
    for (const [reason, codes] of codesOfMessage)
      assert.equal(codes.size, 1, `one reason for ${[...codes].join(' and ')}: ${reason}`);
  });

  it('writes every closed set of strings as an enum, the error codes as the catalogue’s', () => {
    const unions: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (Array.isArray(node)) {
        node.forEach((n, i) => {
          walk(n, `${at}/${i}`);
        });
        return;
      }
      if (node === null || typeof node !== 'object') return;
      const anyOf = (node as { anyOf?: unknown[] }).anyOf;
      if (anyOf?.every((o) => typeof (o as { const?: unknown }).const === 'string')) unions.push(at);
      for (const [k, v] of Object.entries(node)) walk(v, `${at}/${k}`);
    };
    const document = JSON.parse(readFileSync(OPENAPI_PATH, 'utf8'));
    walk(document, '#');
    assert.deepEqual(unions, []);
    const schemas = document.components.schemas;
    assert.deepEqual(schemas.EventNotifierRecord.properties.status.enum, ['scanned', 'notified', 'failed']);
    assert.deepEqual(schemas.SystemWallet.properties.ownerType.enum, ['shared', 'dedicated']);
    assert.deepEqual(schemas.Error.properties.code.enum, Object.keys(ERROR_CATALOGUE));
  });

  it('describes every webhook, and a server entry for a deployment of one’s own', () => {
    const document = JSON.parse(readFileSync(OPENAPI_PATH, 'utf8'));
    assert.deepEqual(Object.keys(document.webhooks), [
      'event_notifier.event',
      'event_notifier.event.removed',
      'transaction.broadcasted',
      'transaction.succeeded',
      'transaction.reverted',
      'transaction.failed',
      'transaction.reorged',
      'transaction.finalized',
      'transaction.cancelled',
      'endpoint.disabled',
      'subscription.webhook_disabled',
    ]);
    for (const hook of Object.values(document.webhooks) as { post: { parameters: { name: string }[] } }[]) {
      assert.deepEqual(
        hook.post.parameters.map((p) => p.name),
        ['webhook-id', 'webhook-timestamp', 'webhook-signature'],
      );
    }
    assert.deepEqual(
      document.servers.map((s: { url: string }) => s.url),
      ['http://127.0.0.1:8080/public-api/v3', 'https://{host}/public-api/v3'],
    );
  });

  it('passes `redocly lint` with 0 errors', () => {
    const bin = path.join(REPO_ROOT, 'node_modules/.bin/redocly');
    const output = execFileSync(bin, ['lint', '--format=json', OPENAPI_PATH], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    const report = JSON.parse(output.slice(output.indexOf('{')));
    assert.equal(report.totals.errors, 0, JSON.stringify(report.problems, null, 2));
  });
});
