import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RouteDefinition } from '#api/http/route.ts';
import { rotateApiKey } from '#api/projects/projects.ts';
import { routes } from '#api/routes/index.ts';
import { apiKey, bearer, createHarness, type Harness } from './helpers/harness.ts';

/** A request each operation accepts as valid, so that only credentials decide the answer. */
function validRequest(route: RouteDefinition) {
  const query: Record<string, string> =
    route.operationId === 'get-transaction' ? { transactionId: '3e7a9c1b-2d4f-4a6b-8c0d-e1f2a3b4c5d6' } : {};
  return { ...(route.requestExample ? { body: route.requestExample } : {}), query };
}

/**
 * What an authorised caller gets for the valid request: 501 for an operation not served yet; otherwise anything
 * but 401/403 (the example ids may not exist in this project, so 404 is as good a proof as success).
 */
function assertAllowed(route: RouteDefinition, res: { status: number; body: unknown }): void {
  if (route.notImplemented) assert.equal(res.status, 501, JSON.stringify(res.body));
  else assert.ok(![401, 403].includes(res.status), `${route.operationId}: ${res.status} ${JSON.stringify(res.body)}`);
}

describe('authentication and roles, every operation', () => {
  let h: Harness;
  let key: string;
  let revokedKey: string;
  let projectId: number;
  const tokens: Record<string, string> = {};

  before(async () => {
    h = await createHarness();
    const created = await h.project('Matrix');
    projectId = created.project.id;
    revokedKey = created.apiKey;
    key = await rotateApiKey(h.db, projectId, 'test');
    for (const role of ['admin', 'editor', 'reader'] as const) tokens[role] = (await h.member(projectId, role)).token;
    const outsider = await h.user();
    tokens.nonMember = h.token(outsider.id, { projectId });
    const member = await h.member(projectId, 'admin');
    tokens.expired = h.token(member.userId, { expiresInSeconds: 60, now: Date.now() - 3_600_000 });
  });
  after(() => h.close());

  const cells: [
    string,
    (() => Record<string, string>) | Record<string, string>,
    (r: RouteDefinition) => [number, string?],
  ][] = [
    ['no credentials', {}, () => [401, 'UNAUTHENTICATED']],
    ['malformed API key', { 'x-api-key': 'not-a-key' }, () => [401, 'INVALID_API_KEY']],
    ['unknown API key', { 'x-api-key': `mtn_test_${'A'.repeat(44)}` }, () => [401, 'INVALID_API_KEY']],
    ['malformed bearer token', { authorization: 'Bearer abc.def.ghi' }, () => [401, 'INVALID_ACCESS_TOKEN']],
    ['non-bearer authorization', { authorization: 'Basic dXNlcjpwYXNz' }, () => [401, 'INVALID_ACCESS_TOKEN']],
  ];

  for (const route of routes) {
    describe(route.operationId, () => {
      for (const [name, headers, expected] of cells) {
        it(`${name} → ${expected(route)[0]}`, async () => {
          const res = await h.call(route.operationId, {
            ...validRequest(route),
            headers: headers as Record<string, string>,
          });
          const [status, code] = expected(route);
          assert.equal(res.status, status);
          assert.equal(res.body.code, code);
        });
      }

      it('revoked (rotated) API key → 401', async () => {
        const res = await h.call(route.operationId, { ...validRequest(route), headers: apiKey(revokedKey) });
        assert.equal(res.status, 401);
        assert.equal(res.body.code, 'INVALID_API_KEY');
      });

      it('expired access token → 401', async () => {
        const res = await h.call(route.operationId, {
          ...validRequest(route),
          headers: bearer(tokens.expired as string),
        });
        assert.equal(res.status, 401);
        assert.equal(res.body.code, 'ACCESS_TOKEN_EXPIRED');
      });

      it('token of a user who is not a member', async () => {
        const res = await h.call(route.operationId, {
          ...validRequest(route),
          headers: bearer(tokens.nonMember as string),
        });
        if (route.auth.accessTokenOnly) {
          assert.equal(res.status, 200, 'get-projects lists the (zero) projects of any valid user');
          assert.deepEqual(res.body.data.projects, []);
        } else {
          assert.equal(res.status, 403);
          assert.equal(res.body.code, 'NOT_A_MEMBER');
        }
      });

      it(`project API key → ${route.auth.accessTokenOnly ? '403' : 'allowed'}`, async () => {
        const res = await h.call(route.operationId, { ...validRequest(route), headers: apiKey(key) });
        if (route.auth.accessTokenOnly) {
          assert.equal(res.status, 403);
          assert.equal(res.body.code, 'ACCESS_TOKEN_REQUIRED');
        } else {
          assertAllowed(route, res);
        }
      });

      for (const role of ['reader', 'editor', 'admin'] as const) {
        const allowed = route.auth.roles.includes(role);
        it(`${role} token → ${allowed ? 'allowed' : '403'}`, async () => {
          const res = await h.call(route.operationId, {
            ...validRequest(route),
            headers: bearer(tokens[role] as string),
          });
          if (allowed) {
            assertAllowed(route, res);
          } else {
            assert.equal(res.status, 403);
            assert.equal(res.body.code, 'FORBIDDEN');
            assert.deepEqual(res.body.requiredRoles, ['admin', 'editor']);
            assert.equal(res.body.message, 'This operation requires one of the roles: admin, editor');
          }
        });
      }
    });
  }
});

describe('access tokens', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness();
  });
  after(() => h.close());

  it('rejects a token whose payload was altered', async () => {
    const { project } = await h.project();
    const { token } = await h.member(project.id, 'reader');
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: '999' })).toString('base64url');
    const res = await h.call('get-project-detail', { headers: bearer(`${header}.${forged}.${signature}`) });
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'INVALID_ACCESS_TOKEN');
  });

  it('rejects a token signed with another key, and one whose user was deleted', async () => {
    const { project } = await h.project();
    const member = await h.member(project.id, 'admin');
    const other = await createHarness();
    try {
      const foreign = other.token(member.userId);
      const res = await h.call('get-project-detail', { headers: bearer(foreign) });
      assert.equal(res.body.code, 'INVALID_ACCESS_TOKEN');
    } finally {
      await other.close();
    }
    await h.db.query('DELETE FROM users WHERE id = $1', [member.userId]);
    const res = await h.call('get-project-detail', { headers: bearer(member.token) });
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'INVALID_ACCESS_TOKEN');
  });

  it('picks the project: the only membership, X-Project-Id, or 400 when ambiguous', async () => {
    const a = await h.project('A');
    const b = await h.project('B');
    const user = await h.user();
    const { setMembership } = await import('#api/projects/users.ts');
    await setMembership(h.db, { projectId: a.project.id, userId: user.id, role: 'reader' });
    const token = h.token(user.id);
    let res = await h.call('get-project-detail', { headers: bearer(token) });
    assert.equal(res.body.data.project.id, a.project.id, 'a single membership is chosen without a header');

    await setMembership(h.db, { projectId: b.project.id, userId: user.id, role: 'editor' });
    res = await h.call('get-project-detail', { headers: bearer(token) });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'PROJECT_REQUIRED');

    res = await h.call('get-project-detail', { headers: { ...bearer(token), 'x-project-id': String(b.project.id) } });
    assert.equal(res.body.data.project.projectName, 'B');

    res = await h.call('get-project-detail', { headers: { ...bearer(token), 'x-project-id': 'abc' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'INVALID_PROJECT_ID');

    // A token issued for project A cannot be pointed at project B, although the user is a member of B.
    const limited = h.token(user.id, { projectId: a.project.id });
    res = await h.call('get-project-detail', { headers: { ...bearer(limited), 'x-project-id': String(b.project.id) } });
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 'NOT_A_MEMBER');
    res = await h.call('get-project-detail', { headers: bearer(limited) });
    assert.equal(res.body.data.project.id, a.project.id);
  });

  it('uses the role of the chosen project', async () => {
    const a = await h.project('A');
    const b = await h.project('B');
    const user = await h.user();
    const { setMembership } = await import('#api/projects/users.ts');
    await setMembership(h.db, { projectId: a.project.id, userId: user.id, role: 'admin' });
    await setMembership(h.db, { projectId: b.project.id, userId: user.id, role: 'reader' });
    const token = h.token(user.id);
    const res = await h.call('import-contract', {
      headers: { ...bearer(token), 'x-project-id': String(b.project.id) },
      body: { networkId: 1337, address: '0x5FbDB2315678afecb367f032d93F642f64180aa3', formattedAbi: ['function f()'] },
    });
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 'FORBIDDEN');
  });
});

describe('project isolation', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness();
  });
  after(() => h.close());

  it("a project's key reads only its own project", async () => {
    const a = await h.project('Alpha');
    const b = await h.project('Beta');
    const resA = await h.call('get-project-detail', { headers: apiKey(a.apiKey) });
    const resB = await h.call('get-project-detail', { headers: apiKey(b.apiKey) });
    assert.equal(resA.body.data.project.projectName, 'Alpha');
    assert.equal(resB.body.data.project.projectName, 'Beta');
    assert.notEqual(resA.body.data.mSystemWalletMainnet.address, resB.body.data.mSystemWalletMainnet.address);
    // X-Project-Id has no effect with an API key.
    const res = await h.call('get-project-detail', {
      headers: { ...apiKey(a.apiKey), 'x-project-id': String(b.project.id) },
    });
    assert.equal(res.body.data.project.projectName, 'Alpha');
  });

  it("a member of one project cannot reach another project's data", async () => {
    const a = await h.project('Alpha');
    const b = await h.project('Beta');
    const { token } = await h.member(a.project.id, 'admin');
    const res = await h.call('get-project-detail', {
      headers: { ...bearer(token), 'x-project-id': String(b.project.id) },
    });
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 'NOT_A_MEMBER');
    assert.doesNotMatch(JSON.stringify(res.body), /Beta/);
  });
});
