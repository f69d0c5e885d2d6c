import assert from 'node:assert/strict';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '#api/app.ts';
import { keyId, signAccessToken, verifyAccessToken } from '#api/auth/accessTokens.ts';
import { ConfigError, loadConfig } from '#api/config/config.ts';
import { setMembership } from '#api/projects/users.ts';
import { createHarness, type Harness } from '#api-testing/harness.ts';

const b64 = (key: Buffer) => key.toString('base64');
const MASTER_KEY = b64(Buffer.alloc(32, 1));

/** A token in the shape of those signed before key ids: no `kid` in its header. */
function tokenWithoutKid(key: Buffer, userId: number): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const input = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode({ sub: String(userId), iat: now, exp: now + 600, jti: crypto.randomUUID() })}`;
  return `${input}.${createHmac('sha256', key).update(input).digest('base64url')}`;
}

const header = (token: string) => JSON.parse(Buffer.from(token.split('.')[0] as string, 'base64url').toString());

describe('token signing keys: key ids and rotation', () => {
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  let h: Harness;
  let userId: number;
  const apps: FastifyInstance[] = [];

  /** An API process configured with `env` on the harness's database, as main.ts would build it. */
  async function apiWith(env: Record<string, string>) {
    const config = loadConfig({ NODE_ENV: 'test', MASTER_KEY, ...env });
    const app = buildApp({
      ...h.deps,
      tokenSigningKey: config.tokenSigningKey,
      previousTokenSigningKeys: config.previousTokenSigningKeys,
    });
    apps.push(app);
    return async (token: string) => {
      const res = await app.inject({
        method: 'GET',
        url: '/public-api/v3/project/get-project-detail',
        headers: { authorization: `Bearer ${token}` },
      });
      return { status: res.statusCode, code: res.json().code as string | undefined };
    };
  }

  before(async () => {
    h = await createHarness();
    const { project } = await h.project();
    userId = (await h.user()).id;
    await setMembership(h.db, { projectId: project.id, userId, role: 'reader' });
  });
  after(async () => {
    for (const app of apps) await app.close();
    await h?.close();
  });

  it('names the signing key in each token: kid, the first 8 bytes of the SHA-256 of the key, in hex', () => {
    const { token } = signAccessToken(newKey, { userId: 1, expiresInSeconds: 60 });
    const expected = createHash('sha256').update(newKey).digest('hex').slice(0, 16);
    assert.equal(keyId(newKey), expected);
    assert.deepEqual(header(token), { alg: 'HS256', typ: 'JWT', kid: expected });
    assert.notEqual(keyId(oldKey), keyId(newKey));
  });

  it('reads TOKEN_SIGNING_KEYS: the first key signs, the others only verify; TOKEN_SIGNING_KEY is a list of one', () => {
    const listed = loadConfig({ NODE_ENV: 'test', MASTER_KEY, TOKEN_SIGNING_KEYS: `${b64(newKey)}, ${b64(oldKey)}` });
    assert.deepEqual(listed.tokenSigningKey, newKey);
    assert.deepEqual(listed.previousTokenSigningKeys, [oldKey]);
    const single = loadConfig({ NODE_ENV: 'test', MASTER_KEY, TOKEN_SIGNING_KEY: b64(oldKey) });
    assert.deepEqual(single.tokenSigningKey, oldKey);
    assert.deepEqual(single.previousTokenSigningKeys, []);
    const production = loadConfig({ NODE_ENV: 'production', MASTER_KEY, TOKEN_SIGNING_KEYS: b64(newKey) });
    assert.deepEqual(production.tokenSigningKey, newKey);
  });

  it('refuses both variables at once, and names each wrong key by position, never by value', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig({ NODE_ENV: 'production', MASTER_KEY, ...env });
      } catch (error) {
        assert.ok(error instanceof ConfigError);
        for (const key of [newKey, oldKey]) assert.ok(!error.message.includes(b64(key).slice(0, 12)), 'no key value');
        return error.problems;
      }
      assert.fail('the configuration was accepted');
    };
    assert.deepEqual(
      problems({ TOKEN_SIGNING_KEY: b64(oldKey), TOKEN_SIGNING_KEYS: `${b64(newKey)},${b64(oldKey)}` }),
      [
        'TOKEN_SIGNING_KEY and TOKEN_SIGNING_KEYS are both set: set only TOKEN_SIGNING_KEYS, the signing key first ' +
          '(list TOKEN_SIGNING_KEY after it while its tokens must still verify)',
      ],
    );
    assert.deepEqual(problems({ TOKEN_SIGNING_KEYS: `${b64(newKey)},${b64(newKey).slice(0, 20)},,${b64(newKey)}` }), [
      'TOKEN_SIGNING_KEYS: key 2 of 4 must be 32 bytes encoded as base64 (got 15 bytes)',
      'TOKEN_SIGNING_KEYS: key 3 of 4 is empty',
      'TOKEN_SIGNING_KEYS: keys 1 and 4 are the same key',
    ]);
    assert.deepEqual(problems({}), [
      'TOKEN_SIGNING_KEY or TOKEN_SIGNING_KEYS is required in production (32 random bytes, base64)',
    ]);
  });

  it('keeps tokens of the previous key valid while it is listed, and refuses them once it is removed', async () => {
    const before = await apiWith({ TOKEN_SIGNING_KEY: b64(oldKey) });
    const during = await apiWith({ TOKEN_SIGNING_KEYS: `${b64(newKey)},${b64(oldKey)}` });
    const afterRotation = await apiWith({ TOKEN_SIGNING_KEYS: b64(newKey) });
    const oldToken = signAccessToken(oldKey, { userId, expiresInSeconds: 600 }).token;
    const legacy = tokenWithoutKid(oldKey, userId);
    const newToken = signAccessToken(newKey, { userId, expiresInSeconds: 600 }).token;

    assert.equal((await before(oldToken)).status, 200);
    assert.equal((await before(legacy)).status, 200, 'a token from before key ids still verifies');
    assert.equal((await before(newToken)).code, 'INVALID_ACCESS_TOKEN', 'the new key is not listed yet');
    for (const token of [oldToken, legacy, newToken]) assert.equal((await during(token)).status, 200);
    assert.equal((await afterRotation(newToken)).status, 200);
    for (const token of [oldToken, legacy]) {
      assert.deepEqual(await afterRotation(token), { status: 401, code: 'INVALID_ACCESS_TOKEN' });
    }
  });

  it('refuses a token whose kid names no listed key with the same 401 as any invalid token', async () => {
    const api = await apiWith({ TOKEN_SIGNING_KEYS: `${b64(newKey)},${b64(oldKey)}` });
    const unknown = signAccessToken(randomBytes(32), { userId, expiresInSeconds: 600 }).token;
    // The header of a listed key's token, but signed by another key: the kid does not lend its key.
    const [, payload] = unknown.split('.') as [string, string];
    const borrowed = signAccessToken(newKey, { userId, expiresInSeconds: 600 }).token.split('.')[0];
    const swapped = `${borrowed}.${payload}.${unknown.split('.')[2]}`;
    const listedToken = signAccessToken(newKey, { userId, expiresInSeconds: 600 }).token;
    const badSignature = `${listedToken.split('.').slice(0, 2).join('.')}.${'A'.repeat(43)}`;
    const expected = { status: 401, code: 'INVALID_ACCESS_TOKEN' };
    for (const token of [unknown, swapped, badSignature]) assert.deepEqual(await api(token), expected);
    assert.equal((await api(listedToken)).status, 200);
    assert.throws(() => verifyAccessToken([newKey, oldKey], unknown), { reason: 'signature' });
  });
});
