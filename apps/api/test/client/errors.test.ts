// Each error class as the real API server produces it: the class, status, code, message, request id and body.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  AuthenticationError,
  ConnectionError,
  MountainClient,
  MountainError,
  NotFoundError,
  PermissionError,
  ServerError,
  ValidationError,
} from '@mountain/public-api-client';
import { freePort } from '@mountain/testkit/ports.ts';
import { createHarness, type Harness } from '#api-testing/harness.ts';

const CONTRACT = '0x00000000000000000000000000000000000C0FFE';
const MINT = 'function mint(address to, uint256 amount)';

describe('error classes from real server answers', () => {
  let h: Harness;
  let baseUrl: string;
  let projectId: number;
  let apiKey: string;

  before(async () => {
    // Chain 1337 points at a closed port, so executing there meets an unreachable chain (503).
    const deadChain = `http://127.0.0.1:${await freePort()}`;
    h = await createHarness({ rpcUrls: { 1337: deadChain } });
    await h.app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}/public-api/v3`;
    ({ apiKey } = await h.project('Errors'));
    projectId = (await new MountainClient({ apiKey, baseUrl }).getProjectDetail()).data.project.id;
  });
  after(() => h.close());

  it('401 wrong API key: AuthenticationError with the request id the server answered', async () => {
    const client = new MountainClient({
      apiKey: `${apiKey.slice(0, -4)}XXXX`,
      baseUrl,
      headers: { 'x-request-id': 'req-401' },
    });
    await assert.rejects(client.getProjectDetail(), (error) => {
      assert.ok(error instanceof AuthenticationError);
      assert.ok(error instanceof MountainError && error instanceof Error);
      assert.equal(error.name, 'AuthenticationError');
      assert.equal(error.status, 401);
      assert.equal(error.code, 'INVALID_API_KEY');
      assert.equal(error.message, 'The API key is invalid or has been revoked');
      assert.equal(error.requestId, 'req-401');
      assert.deepEqual(error.body, {
        statusCode: 401,
        error: 'Unauthorized',
        code: 'INVALID_API_KEY',
        message: error.message,
      });
      return true;
    });
  });

  it('401 expired access token', async () => {
    const { userId } = await h.member(projectId, 'admin');
    const expired = h.token(userId, { expiresInSeconds: 1, now: Date.now() - 3_600_000 });
    const client = new MountainClient({ accessToken: expired, baseUrl });
    await assert.rejects(client.getProjectDetail(), { name: 'AuthenticationError', code: 'ACCESS_TOKEN_EXPIRED' });
  });

  it('403 reader calling importContract: PermissionError listing the required roles', async () => {
    const { token } = await h.member(projectId, 'reader');
    const reader = new MountainClient({ accessToken: token, baseUrl });
    const body = {
      networkId: 1337 as const,
      address: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      formattedAbi: ['function f()'],
    };
    await assert.rejects(reader.importContract(body), (error) => {
      assert.ok(error instanceof PermissionError);
      assert.equal(error.name, 'PermissionError');
      assert.equal(error.status, 403);
      assert.equal(error.code, 'FORBIDDEN');
      assert.deepEqual([...error.requiredRoles].sort(), ['admin', 'editor']);
      assert.match(error.requestId ?? '', /\S/);
      return true;
    });
  });

  it('403 API key calling getProjects: PermissionError without required roles', async () => {
    const client = new MountainClient({ apiKey, baseUrl });
    await assert.rejects(client.getProjects(), (error) => {
      assert.ok(error instanceof PermissionError);
      assert.equal(error.code, 'ACCESS_TOKEN_REQUIRED');
      assert.deepEqual(error.requiredRoles, []);
      return true;
    });
  });

  it('400 PROJECT_REQUIRED for a token user of two projects, and projectId (X-Project-Id) picks one', async () => {
    const { project: other } = await h.project('Other');
    const { userId, token } = await h.member(projectId, 'editor');
    const { setMembership } = await import('#api/projects/users.ts');
    await setMembership(h.db, { projectId: other.id, userId, role: 'reader' });

    await assert.rejects(new MountainClient({ accessToken: token, baseUrl }).getProjectDetail(), (error) => {
      assert.ok(error instanceof ValidationError);
      assert.equal(error.code, 'PROJECT_REQUIRED');
      assert.deepEqual(error.details, []);
      return true;
    });
    const chosen = new MountainClient({ accessToken: token, projectId: other.id, baseUrl });
    assert.equal((await chosen.getProjectDetail()).data.project.id, other.id);
  });

  it('400 with details: ValidationError listing every wrong field', async () => {
    const client = new MountainClient({ apiKey, baseUrl });
    const body = { contractActivatedFunctionId: 0, functionArgs: 'not a list', extra: true } as never;
    await assert.rejects(client.executeTransaction(body), (error) => {
      assert.ok(error instanceof ValidationError);
      assert.equal(error.code, 'VALIDATION_FAILED');
      const fields = error.details.map((d) => d.field);
      assert.ok(fields.includes('body.contractActivatedFunctionId'), fields.join());
      assert.ok(fields.includes('body.functionArgs'), fields.join());
      for (const detail of error.details) assert.match(detail.message, /\S/);
      return true;
    });
  });

  it('404 unknown route (a wrong baseUrl): NotFoundError ROUTE_NOT_FOUND', async () => {
    const client = new MountainClient({ apiKey, baseUrl: baseUrl.replace('/v3', '/v2') });
    await assert.rejects(client.getProjectDetail(), (error) => {
      assert.ok(error instanceof NotFoundError);
      assert.equal(error.status, 404);
      assert.equal(error.code, 'ROUTE_NOT_FOUND');
      return true;
    });
  });

  it('5xx from the server (chain unreachable): ServerError after the retries; 422: a plain MountainError', async () => {
    let attempts = 0;
    const client = new MountainClient({
      apiKey,
      baseUrl,
      initialRetryDelayMs: 1,
      fetch: (input, init) => {
        attempts++;
        return fetch(input, init);
      },
    });
    const executeOn = async (networkId: 1337 | 11155111) => {
      const { contract } = await client.importContract({ networkId, address: CONTRACT, formattedAbi: [MINT] });
      const activated = await client.activateContractFunction({ contractId: contract.id, formattedAbiFunction: MINT });
      attempts = 0;
      return client.executeTransaction({
        contractActivatedFunctionId: activated.contractActivatedFunction.id,
        functionArgs: [CONTRACT, '1'],
      });
    };
    await assert.rejects(executeOn(1337), (error) => {
      assert.ok(error instanceof ServerError && !(error instanceof ConnectionError));
      assert.equal(error.status, 503);
      assert.equal(error.code, 'CHAIN_UNAVAILABLE');
      assert.equal(attempts, 3, 'a 503 is retried');
      return true;
    });
    // Sepolia has no RPC URL in this deployment: 422, which has no class of its own.
    await assert.rejects(executeOn(11155111), (error) => {
      assert.ok(error instanceof MountainError);
      assert.equal(error.constructor, MountainError);
      assert.equal(error.status, 422);
      assert.equal(error.code, 'NETWORK_NOT_CONFIGURED');
      assert.equal(attempts, 1, 'a 422 is not retried');
      return true;
    });
  });

  it('no server: ConnectionError after the retries, with the fetch error as cause', async () => {
    let attempts = 0;
    // A port that was just listened on and closed again (freePort): connections to it are refused.
    const closed = `http://127.0.0.1:${await freePort()}/public-api/v3`;
    const client = new MountainClient({
      apiKey,
      baseUrl: closed,
      initialRetryDelayMs: 1,
      fetch: (input, init) => {
        attempts++;
        return fetch(input, init);
      },
    });
    await assert.rejects(client.getProjectDetail(), (error) => {
      assert.ok(error instanceof ConnectionError);
      assert.equal(error.name, 'ConnectionError');
      assert.equal(error.status, undefined);
      assert.equal(error.code, 'CONNECTION_ERROR');
      assert.ok(error.cause instanceof Error);
      return true;
    });
    assert.equal(attempts, 3, 'first attempt and the 2 default retries');
  });
});
