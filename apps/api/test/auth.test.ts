import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { type AnvilHandle, startAnvil } from '@mountain/testkit/anvil.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { deployCounter } from '@mountain/testkit/testContract.ts';
import { hashKey, issueApiKey, keyMatches } from '#api/auth/apiKeys.ts';
import { routes } from '#api/routes/index.ts';
import { bearer, createHarness, type Harness } from '#api-testing/harness.ts';
import { createMatrixFixture, MATRIX_OPERATIONS, type MatrixFixture } from './helpers/authMatrix.ts';
import { assertRefusal, CALLERS, describeOutcome } from './helpers/authMatrixCallers.ts';

/**
 * Every operation × every kind of caller. Requests name real objects of project A (a contract on anvil, its
 * activated function, a transaction, a subscription), so an allowed caller must get the operation's success
 * status with A's data, and a caller acting in project B must get 404 (or only B's data from a list).
 */
describe('authorization matrix: every operation × every caller', () => {
  let anvil: AnvilHandle;
  let h: Harness;
  let f: MatrixFixture;
  let n = 0;
  const answered = new Map<string, number>();

  before(async () => {
    anvil = await startAnvil({ port: await freePort() });
    h = await createHarness({ rpcUrls: { 1337: anvil.url } });
    f = await createMatrixFixture(h, await deployCounter(anvil.url));
  });
  after(async () => {
    await h?.close();
    await anvil?.stop();
  });

  // The operations on the caller's own token come last: revoke-access-token ends each caller's token.
  const ordered = [...routes.filter((r) => !r.auth.ownToken), ...routes.filter((r) => r.auth.ownToken)];
  for (const route of ordered) {
    const operation = MATRIX_OPERATIONS[route.operationId];
    describe(route.operationId, () => {
      for (const caller of CALLERS) {
        // An operation without credentials (exchange-console-link) reads none: every caller gets through.
        const outcome = route.auth.anonymous ? { actsIn: 'no project' as const } : caller.expect(route);
        it(`${caller.name} → ${describeOutcome(outcome)}`, async () => {
          assert.ok(operation, `${route.operationId} has a row in the matrix`);
          const headers = caller.headers(f);
          const res = await h.call(route.operationId, { ...operation.request(f, ++n), headers });
          if ('actsIn' in outcome) await operation.check(res, f, outcome.actsIn, h);
          else assertRefusal(res, outcome, route);
          // No answer repeats a credential it was sent.
          const credentials = Object.values(headers).flatMap((v) => v.split(' ').filter((part) => part.length >= 12));
          for (const credential of credentials) assert.ok(!JSON.stringify(res.body).includes(credential));
          answered.set(`${route.operationId}|${caller.label}`, res.status);
        });
      }
    });
  }

  it(`has all ${routes.length} × ${CALLERS.length} cells answered as expected (printed below)`, (t) => {
    assert.equal(
      routes.length,
      40,
      'the 15 operations of the spec, the console’s 9, the webhooks’ 9, call-contract-function, speed-up- and cancel-transaction, delete-, update- and rewind-subscription, add-system-wallets',
    );
    assert.deepEqual(Object.keys(MATRIX_OPERATIONS).sort(), routes.map((r) => r.operationId).sort());
    assert.equal(answered.size, routes.length * CALLERS.length);
    const width = Math.max(...routes.map((r) => r.operationId.length));
    const lines = [[''.padEnd(width), ...CALLERS.map((c) => c.label.padStart(7))].join(' ')];
    for (const route of routes) {
      const row = CALLERS.map((c) => String(answered.get(`${route.operationId}|${c.label}`)).padStart(7));
      lines.push([route.operationId.padEnd(width), ...row].join(' '));
    }
    t.diagnostic(`authorization matrix, ${answered.size} cells (HTTP status per operation × caller):`);
    for (const line of lines) t.diagnostic(line);
  });
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

  it('rejects a token whose signature is not in canonical base64url: padded, or its last character’s unused bits set', async () => {
    const { project } = await h.project();
    const { token } = await h.member(project.id, 'reader');
    assert.equal((await h.call('get-project-detail', { headers: bearer(token) })).status, 200);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    // 32 bytes in 43 characters: the last one carries 2 unused bits, zero in the canonical form.
    const last = alphabet.indexOf(token.at(-1) as string);
    assert.equal(last % 4, 0);
    const variants = [`${token}=`, `${token}==`, `${token.slice(0, -1)}${alphabet[last + 1]}`];
    for (const variant of variants) {
      assert.deepEqual(
        Buffer.from(variant.split('.')[2] as string, 'base64url'),
        Buffer.from(token.split('.')[2] as string, 'base64url'),
        'the same bytes',
      );
      const res = await h.call('get-project-detail', { headers: bearer(variant) });
      assert.equal(res.status, 401, variant);
      assert.equal(res.body.code, 'INVALID_ACCESS_TOKEN');
    }
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

describe('API key comparison', () => {
  const { key, secretHash } = issueApiKey('test');

  it('matches the right key and refuses wrong keys of every length, without throwing', () => {
    assert.equal(keyMatches(key, secretHash), true);
    const wrong = [
      '',
      'm',
      key.slice(0, -1),
      `${key}x`,
      `${key}${key}`,
      key.replace(/.$/, (c) => (c === 'a' ? 'b' : 'a')),
      key.replace(/^(.{30})./, (_, head: string) => `${head}${key[30] === 'Z' ? 'Y' : 'Z'}`),
      key.toUpperCase(),
      ` ${key}`,
      'é'.repeat(53),
      'x'.repeat(100_000),
    ];
    for (const candidate of wrong) assert.equal(keyMatches(candidate, secretHash), false, candidate.slice(0, 60));
  });

  it('compares digests of equal length, so a stored hash of another length is refused rather than thrown on', () => {
    for (const candidate of ['', 'a', key, 'x'.repeat(10_000)]) assert.equal(hashKey(candidate).length, 32);
    assert.equal(secretHash.length, 32);
    assert.equal(keyMatches(key, secretHash.subarray(0, 16)), false);
    assert.equal(keyMatches(key, Buffer.alloc(0)), false);
    assert.equal(keyMatches(key, Buffer.concat([secretHash, Buffer.from([0])])), false);
  });

  it('uses crypto.timingSafeEqual on SHA-256 digests, never == on the key or its hash', () => {
    // From the source file: in a bundle of the tests, imported names may be renamed (timingSafeEqual2).
    const apiKeys = readFileSync(new URL('../src/auth/apiKeys.ts', import.meta.url), 'utf8');
    const start = apiKeys.indexOf('export function keyMatches(');
    const source = apiKeys.slice(start, apiKeys.indexOf('\n}\n', start) + 2);
    assert.match(apiKeys, /import \{[^}]*\btimingSafeEqual\b[^}]*\} from 'node:crypto'/);
    assert.match(source, /hashKey\(key\)/, 'the presented key is hashed first: both sides are 32-byte digests');
    assert.match(source, /timingSafeEqual\(\s*presented,\s*storedHash\s*\)/);
    assert.doesNotMatch(source, /presented\s*===?\s*storedHash|\.equals\(|\.compare\(/);
    // The one place keys are checked goes through keyMatches, and looks rows up by the public lookup id only.
    const authenticate = readFileSync(new URL('../src/http/authenticate.ts', import.meta.url), 'utf8');
    assert.match(authenticate, /keyMatches\(key\.trim\(\), row\.secret_hash\)/);
    assert.match(authenticate, /WHERE lookup_id = \$1 AND revoked_at IS NULL/);
    assert.doesNotMatch(authenticate, /secret_hash\s*=\s*\$/);
  });
});
