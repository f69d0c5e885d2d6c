import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { routes } from '#api/routes/index.ts';
import { generateCases } from '../scripts/lib/fuzz/cases.ts';
import { type FuzzEnvironment, startFuzzEnvironment } from '../scripts/lib/fuzz/environment.ts';
import { formatReport } from '../scripts/lib/fuzz/report.ts';
import { checkHealth, type OperationResult, runOperation } from '../scripts/lib/fuzz/run.ts';
import { fuzzSettings } from '../scripts/lib/fuzz/settings.ts';

// The bounded form of `npm run fuzz`: the same generators and checks, fewer cases per operation.
const { seed, runs } = fuzzSettings(40);

describe(`spec-driven fuzzing, ${runs} requests per operation (seed ${seed})`, () => {
  let env: FuzzEnvironment;
  const results: OperationResult[] = [];
  before(async () => {
    env = await startFuzzEnvironment();
  });
  after(() => env?.close());

  it('covers every operation of the OpenAPI document', () => {
    assert.equal(env.operations.length, routes.length);
  });

  it('derives the requests from the document: every body property and query parameter is mutated; one seed, one set', () => {
    const options = {
      seed,
      runs: 300,
      fixtures: env.fixtures,
      credentials: env.credentials,
      bodyLimit: env.h.deps.bodyLimit,
    };
    for (const op of env.operations) {
      const own = { ...options, operationFixtures: env.operationFixtures[op.operationId] };
      const cases = generateCases(op, own);
      const named = new Set(cases.flatMap((c) => c.fields ?? []));
      const expected = [
        ...Object.keys(op.body?.properties ?? {}).map((p) => `body.${p}`),
        ...op.query.map((p) => `querystring.${p.name}`),
      ];
      for (const field of expected) assert.ok(named.has(field), `${op.operationId}: no invalid case for ${field}`);
      const again = generateCases(op, own);
      assert.deepEqual(
        again.map((c) => [c.what, c.target]),
        cases.map((c) => [c.what, c.target]),
      );
    }
  });

  for (const operationId of routes.map((route) => route.operationId)) {
    it(`${operationId}: 4xx in the error shape for invalid input, no 5xx, as documented, nothing written`, async () => {
      const op = env.operations.find((o) => o.operationId === operationId);
      assert.ok(op, `${operationId} is in the document`);
      // A valid rotate-api-key revokes the key every other operation is fuzzed with: it gets a project of its own.
      // renew-access-token and revoke-access-token act on their bearer token: a token of that project's key, so
      // revoking it ends nothing the other operations use.
      const ownToken = operationId === 'renew-access-token' || operationId === 'revoke-access-token';
      const target = operationId === 'rotate-api-key' ? await ownProject(env) : ownToken ? await ownKeyToken(env) : env;
      const result = await runOperation(target, op, { seed, runs });
      results.push(result);
      assert.equal(result.cases, runs);
      assert.deepEqual(result.failures, [], formatReport([result]));
      assert.ok(result.byKind.invalid + result.byKind.edge >= runs / 2, 'mostly invalid and edge-case requests');
      // A sign-in link's code is a secret no generator can guess: valid-looking codes are refused (401), never 5xx.
      // Each rotate-api-key that succeeds revokes the key the next request carries: the first success is the proof.
      // A delete-webhook-endpoint that succeeds deletes the endpoint the next ones name, and any case made of the
      // realistic body may be the first: the proof is that the doomed endpoint is gone.
      // A revoke-access-token that succeeds revokes the token the next request carries: the first success is the proof.
      if (operationId === 'rotate-api-key') assert.ok(result.answers['2xx'] > 0, 'a rotation succeeded');
      else if (operationId === 'revoke-access-token') assert.ok(result.answers['2xx'] > 0, 'a sign-out succeeded');
      else if (operationId === 'delete-webhook-endpoint')
        assert.equal(await doomedEndpoints(env), 0, 'a deletion succeeded');
      // The environment's one transaction is mined by the time the fuzzer comes: a valid speed-up or cancel of it is
      // a 409 (those are held by transactionSpeedUp.test.ts and transactionCancel.test.ts).
      else if (
        result.byKind.valid >= 3 &&
        !['exchange-console-link', 'speed-up-transaction', 'cancel-transaction'].includes(operationId)
      )
        assert.ok(result.validSucceeded > 0, 'realistic valid requests still succeed');
      if (operationId === 'execute-transaction' && result.validSucceeded > 0)
        assert.ok(result.chainCalls > 0, 'accepted executions were simulated on the chain (the RPC count works)');
    });
  }

  it('/healthz and /readyz still answer 200', async () => {
    assert.deepEqual(await checkHealth(env), []);
    console.log(`seed ${seed}, ${runs} per operation\n${formatReport(results)}`);
  });
});

/** How many of the environment's endpoints made to be deleted are left. */
async function doomedEndpoints(env: FuzzEnvironment): Promise<number> {
  const { rows } = await env.h.db.query("SELECT 1 FROM webhook_endpoints WHERE description = 'Fuzz, doomed'");
  return rows.length;
}

/** The environment with the credentials of a fresh project's API key and admin. */
/** The environment with a project of its own whose bearer token is one exchanged for its key (exchange-api-key). */
async function ownKeyToken(env: FuzzEnvironment): Promise<FuzzEnvironment> {
  const own = await ownProject(env);
  const res = await env.h.call('exchange-api-key', { headers: { 'x-api-key': own.credentials.apiKey } });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { ...own, credentials: { ...own.credentials, token: res.body.accessToken } };
}

async function ownProject(env: FuzzEnvironment): Promise<FuzzEnvironment> {
  const created = await env.h.project('Rotated by the fuzzer');
  const admin = await env.h.member(created.project.id, 'admin');
  return { ...env, credentials: { apiKey: created.apiKey, token: admin.token } };
}
