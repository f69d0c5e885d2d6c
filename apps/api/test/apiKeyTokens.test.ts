// A project API key exchanged for a short-lived token (exchange-api-key), the token renewed (renew-access-token)
// and signed out (revoke-access-token): what the console keeps instead of the key.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signAccessToken } from '#api/auth/accessTokens.ts';
import { API_KEY_SESSION_MAX_SECONDS, API_KEY_TOKEN_SECONDS } from '#api/auth/apiKeyTokens.ts';
import { exchangeConsoleLink } from '#api/auth/consoleLinks.ts';
import { apiKey, bearer, createHarness, type Harness } from '#api-testing/harness.ts';

describe('tokens exchanged for the project API key', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness();
  });
  after(() => h?.close());

  const exchange = async (key: string) => {
    const res = await h.call('exchange-api-key', { headers: apiKey(key) });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body as { accessToken: string; expiresAt: string; projectId: number; sessionEndsAt: string };
  };
  const detail = (token: string, headers: Record<string, string> = {}) =>
    h.call('get-project-detail', { headers: { ...bearer(token), ...headers } });

  it('acts as the key, in its project only, for 15 minutes of a 12-hour session', async () => {
    const { project, apiKey: key } = await h.project('Keyed');
    const other = await h.project('Other');
    const before = Date.now();
    const issued = await exchange(key);
    assert.equal(issued.projectId, project.id);
    assert.doesNotMatch(JSON.stringify(issued), /mtn_/, 'the answer holds no key');
    const lifetime = Date.parse(issued.expiresAt) - before;
    assert.ok(lifetime > (API_KEY_TOKEN_SECONDS - 5) * 1000 && lifetime <= API_KEY_TOKEN_SECONDS * 1000, `${lifetime}`);
    const session = Date.parse(issued.sessionEndsAt) - before;
    assert.ok(Math.abs(session - API_KEY_SESSION_MAX_SECONDS * 1000) < 5000, `${session}`);

    const res = await detail(issued.accessToken);
    assert.equal(res.status, 200);
    assert.equal(res.body.data.project.id, project.id);
    assert.deepEqual(res.body.caller, { credential: 'apiKey', role: 'admin' });
    const elsewhere = await detail(issued.accessToken, { 'x-project-id': String(other.project.id) });
    assert.equal(elsewhere.status, 403);
    assert.equal(elsewhere.body.code, 'NOT_A_MEMBER');
    const projects = await h.call('get-projects', { headers: bearer(issued.accessToken) });
    assert.equal(projects.body.code, 'ACCESS_TOKEN_REQUIRED');
    const chained = await h.call('exchange-api-key', { headers: bearer(issued.accessToken) });
    assert.equal(chained.status, 403);
    assert.equal(chained.body.code, 'API_KEY_REQUIRED', 'a token does not make another');
  });

  it('is refused once the key is rotated, and when it was never issued (a signed but unrecorded token)', async () => {
    const { project, apiKey: key } = await h.project();
    const { accessToken } = await exchange(key);
    const unrecorded = signAccessToken(h.tokenSigningKey, {
      apiKeyId: Number(JSON.parse(Buffer.from(accessToken.split('.')[1] as string, 'base64url').toString()).akid),
      projectId: project.id,
      expiresInSeconds: 600,
    }).token;
    assert.equal((await detail(unrecorded)).status, 401);
    const rotated = await h.call('rotate-api-key', { headers: bearer(accessToken) });
    assert.equal(rotated.status, 201);
    const res = await detail(accessToken);
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'INVALID_ACCESS_TOKEN');
    assert.equal((await detail((await exchange(rotated.body.apiKey)).accessToken)).status, 200);
  });

  it('renews within its session: both tokens work, never past the session’s end', async () => {
    const { project, apiKey: key } = await h.project();
    const first = await exchange(key);
    const renewed = await h.call('renew-access-token', { headers: bearer(first.accessToken) });
    assert.equal(renewed.status, 201, JSON.stringify(renewed.body));
    assert.notEqual(renewed.body.accessToken, first.accessToken);
    assert.equal(renewed.body.sessionEndsAt, first.sessionEndsAt);
    assert.equal((await detail(renewed.body.accessToken)).status, 200);
    assert.equal((await detail(first.accessToken)).status, 200, 'requests on their way with the old one succeed');

    // Five minutes before the session's end, a renewal lives five minutes.
    await h.db.query(
      'UPDATE access_tokens SET session_started_at = now() - make_interval(secs => $1) WHERE project_id = $2',
      [API_KEY_SESSION_MAX_SECONDS - 300, project.id],
    );
    const late = await h.call('renew-access-token', { headers: bearer(renewed.body.accessToken) });
    assert.equal(late.status, 201);
    const left = Date.parse(late.body.expiresAt) - Date.now();
    assert.ok(left <= 300_000 && left > 290_000, `${left}`);
    // At its end, no more.
    await h.db.query(
      "UPDATE access_tokens SET session_started_at = session_started_at - interval '301 seconds' WHERE project_id = $1",
      [project.id],
    );
    const ended = await h.call('renew-access-token', { headers: bearer(late.body.accessToken) });
    assert.equal(ended.status, 401);
    assert.equal(ended.body.code, 'ACCESS_TOKEN_EXPIRED');
  });

  it('a user’s token is not renewable, and an API key renews and revokes nothing', async () => {
    const { project, apiKey: key } = await h.project();
    const { token } = await h.member(project.id, 'admin');
    const res = await h.call('renew-access-token', { headers: bearer(token) });
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 'ACCESS_TOKEN_NOT_RENEWABLE');
    for (const operationId of ['renew-access-token', 'revoke-access-token']) {
      const byKey = await h.call(operationId, { headers: apiKey(key) });
      assert.equal(byKey.status, 403);
      assert.equal(byKey.body.code, 'ACCESS_TOKEN_REQUIRED');
    }
  });

  it('signing out ends the token and every renewal of its session, and nothing else', async () => {
    const { apiKey: key } = await h.project();
    const first = await exchange(key);
    const renewed = (await h.call('renew-access-token', { headers: bearer(first.accessToken) })).body;
    const otherSession = await exchange(key);
    const out = await h.call('revoke-access-token', { headers: bearer(renewed.accessToken) });
    assert.equal(out.status, 200, JSON.stringify(out.body));
    for (const token of [first.accessToken, renewed.accessToken]) {
      const res = await detail(token);
      assert.equal(res.status, 401);
      assert.equal(res.body.code, 'INVALID_ACCESS_TOKEN');
    }
    assert.equal((await h.call('renew-access-token', { headers: bearer(first.accessToken) })).status, 401);
    assert.equal((await h.call('revoke-access-token', { headers: bearer(first.accessToken) })).status, 401);
    assert.equal((await detail(otherSession.accessToken)).status, 200, 'another sign-in with the key goes on');
  });

  it('signs out a user’s token, recorded (a sign-in link’s) or not (issued before records)', async () => {
    const { project } = await h.project();
    const member = await h.member(project.id, 'reader');
    const linked = await exchangeConsoleLink(
      h.db,
      h.tokenSigningKey,
      await h.consoleLinkCode(member.userId, { projectId: project.id }),
    );
    assert.ok(linked.ok);
    const other = h.token(member.userId);
    for (const token of [member.token, linked.accessToken]) {
      assert.equal((await detail(token)).status, 200);
      assert.equal((await h.call('revoke-access-token', { headers: bearer(token) })).status, 200);
      const res = await detail(token);
      assert.equal(res.status, 401);
      assert.equal(res.body.code, 'INVALID_ACCESS_TOKEN');
    }
    assert.equal((await detail(other)).status, 200, 'the user’s other tokens go on');
  });
});
