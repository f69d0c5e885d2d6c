import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type FireblocksSimulator, startFireblocksSimulator } from './startFireblocksSimulator.ts';

/** A JWT as Fireblocks specifies it, signed RS256 here by hand (not by the SDK). */
function jwt(privateKeyPem: string, claims: Record<string, unknown>, alg = 'RS256'): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const signingInput = `${encode({ alg, typ: 'JWT' })}.${encode(claims)}`;
  return `${signingInput}.${sign('RSA-SHA256', Buffer.from(signingInput), privateKeyPem).toString('base64url')}`;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('Fireblocks simulator authentication', () => {
  let sim: FireblocksSimulator;
  let user: { apiKey: string; privateKeyPem: string };
  before(async () => {
    // No chain is read by these requests.
    sim = await startFireblocksSimulator({
      assets: { ETH_TEST5: { rpcUrl: 'http://127.0.0.1:9', chainId: 11155111 } },
    });
    user = sim.createApiUser();
  });
  after(() => sim?.stop());

  const origin = () => new URL(sim.url).origin;

  /** Sends `body` to `path` (with /v1 and query) with the given claims overriding correct ones. */
  async function request(
    method: string,
    path: string,
    options: {
      body?: string;
      claims?: Record<string, unknown>;
      apiKey?: string | null;
      key?: string;
      token?: string | null;
    } = {},
  ) {
    const now = Math.floor(Date.now() / 1000);
    const body = options.body ?? '';
    const claims = {
      uri: path,
      nonce: randomUUID(),
      iat: now,
      exp: now + 55,
      sub: user.apiKey,
      bodyHash: sha256(body),
      ...options.claims,
    };
    const token = options.token === undefined ? jwt(options.key ?? user.privateKeyPem, claims) : options.token;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    const apiKey = options.apiKey === undefined ? user.apiKey : options.apiKey;
    if (apiKey !== null) headers['X-API-Key'] = apiKey;
    if (token !== null) headers.Authorization = `Bearer ${token}`;
    const res = await fetch(`${origin()}${path}`, { method, headers, body: method === 'GET' ? undefined : body });
    return {
      status: res.status,
      body: (await res.json()) as { message?: string; code?: number },
      headers: res.headers,
    };
  }

  it('accepts a correct hand-made request, GET and POST', async () => {
    const listed = await request('GET', '/v1/vault/accounts_paged?namePrefix=a&limit=5');
    assert.equal(listed.status, 200);
    assert.match(listed.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    const created = await request('POST', '/v1/vault/accounts', { body: JSON.stringify({ name: 'hand-made' }) });
    assert.equal(created.status, 200);
    assert.equal((created.body as { name?: string }).name, 'hand-made');
  });

  const refusals: [string, Parameters<typeof request>[2] | (() => Parameters<typeof request>[2]), number, string][] = [
    ['a uri without the query string', { claims: { uri: '/v1/vault/accounts_paged' } }, -4, 'Wrong URL in the JWT'],
    ['a uri without /v1', { claims: { uri: '/vault/accounts_paged?limit=5' } }, -4, 'Wrong URL in the JWT'],
    [
      'a body hash of another body',
      { body: '{"name":"x"}', claims: { bodyHash: sha256('{"name":"y"}') } },
      -7,
      'Unauthorized: Token was not accepted.',
    ],
    ['an unknown API key', { apiKey: randomUUID(), claims: {} }, -7, 'Unauthorized: Token was not accepted.'],
    [
      'an expired token',
      { claims: { iat: Math.floor(Date.now() / 1000) - 120, exp: Math.floor(Date.now() / 1000) - 60 } },
      -10,
      'The request has expired.',
    ],
    [
      'a token issued in the future',
      { claims: { iat: Math.floor(Date.now() / 1000) + 60, exp: Math.floor(Date.now() / 1000) + 100 } },
      -12,
      'The request is with a future issuance timestamp (iat).',
    ],
    // Another API user's key of the same simulator: each user has a key of its own.
    ['a token signed with another key', () => ({ key: sim.createApiUser().privateKeyPem }), -1, 'invalid signature'],
    ['a sub other than the API key', { claims: { sub: randomUUID() } }, -6, 'Wrong User in the JWT'],
    ['no X-API-Key', { apiKey: null }, -2, 'Missing API Key'],
    ['no Authorization', { token: null }, -3, 'The entire JWT is missing'],
    ['a token that is not a JWT', { token: 'not.a-jwt' }, -5, 'Unauthorized: Invalid token format'],
  ];
  for (const [what, options, code, message] of refusals) {
    it(`refuses ${what}: 401 ${code}`, async () => {
      const path = '/v1/vault/accounts_paged?limit=5';
      const answer = await request(
        options && 'body' in options ? 'POST' : 'GET',
        options && 'body' in options ? '/v1/vault/accounts' : path,
        typeof options === 'function' ? options() : options,
      );
      assert.equal(answer.status, 401);
      assert.deepEqual(answer.body, { message, code });
    });
  }

  it('refuses a nonce used before, while its token lives', async () => {
    const nonce = randomUUID();
    assert.equal((await request('GET', '/v1/vault/accounts_paged', { claims: { nonce } })).status, 200);
    const again = await request('GET', '/v1/vault/accounts_paged', { claims: { nonce } });
    assert.equal(again.status, 401);
    assert.equal(again.body.code, -7);
  });

  it('accepts a key made elsewhere once registered', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const apiKey = randomUUID();
    const key = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const path = '/v1/vault/accounts_paged';
    assert.equal((await request('GET', path, { apiKey, key, claims: { sub: apiKey } })).status, 401);
    sim.registerApiUser(apiKey, publicKey.export({ type: 'spki', format: 'pem' }).toString());
    assert.equal((await request('GET', path, { apiKey, key, claims: { sub: apiKey } })).status, 200);
  });
});
