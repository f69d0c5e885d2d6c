import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '#api/app.ts';
import { signAccessToken } from '#api/auth/accessTokens.ts';
import {
  issueAccessToken,
  PRUNE_AFTER_EXPIRY_SECONDS,
  pruneAccessTokens,
  revokeAccessToken,
} from '#api/auth/revocation.ts';
import { createChains } from '#api/chain/chains.ts';
import { createProject } from '#api/projects/projects.ts';
import { createUser, setMembership } from '#api/projects/users.ts';
import { loadWalletKeys } from '#api/wallets/fromMnemonic/walletKeys.ts';
import { createTestDatabase, type TestDatabase } from '#api-testing/testDatabase.ts';
import { adminCli } from './helpers/adminCli.ts';

/**
 * Revocation across API processes: two apps on one database (as two API processes), the admin CLI in its own
 * process. A revoked token must be refused by both at the first request after the command returns.
 */
describe('revoking access tokens', () => {
  let database: TestDatabase;
  const tokenSigningKey = randomBytes(32);
  const admin = adminCli(() => ({
    DATABASE_URL: database.url,
    MASTER_KEY: randomBytes(32).toString('base64'),
    TOKEN_SIGNING_KEY: tokenSigningKey.toString('base64'),
  }));
  const apps: FastifyInstance[] = [];
  let projectA: number;
  let projectB: number;

  before(async () => {
    database = await createTestDatabase();
    for (let i = 0; i < 2; i++) {
      const deps = { db: database.db, chains: createChains({}), masterKey: randomBytes(32), bodyLimit: 65536 };
      apps.push(buildApp({ ...deps, tokenSigningKey }));
    }
    const keys = await loadWalletKeys(database.db, randomBytes(32));
    projectA = (await createProject(database.db, keys, { projectName: 'A', keyMode: 'test' })).project.id;
    projectB = (await createProject(database.db, keys, { projectName: 'B', keyMode: 'test' })).project.id;
  });
  after(async () => {
    for (const app of apps) await app.close();
    await database?.drop();
  });

  /** The status and code each API process answers to `token` (acting in `projectId` when given). */
  async function answers(token: string, projectId?: number) {
    return Promise.all(
      apps.map(async (app) => {
        const headers: Record<string, string> = { authorization: `Bearer ${token}` };
        if (projectId !== undefined) headers['x-project-id'] = String(projectId);
        const res = await app.inject({ method: 'GET', url: '/public-api/v3/project/get-project-detail', headers });
        return res.statusCode === 200 ? 200 : `${res.statusCode} ${res.json().code}`;
      }),
    );
  }
  const ACCEPTED = [200, 200];
  const REFUSED = ['401 INVALID_ACCESS_TOKEN', '401 INVALID_ACCESS_TOKEN'];

  async function member(projectIds: number[]) {
    const user = await createUser(database.db, { email: `u-${randomBytes(4).toString('hex')}@example.com` });
    for (const projectId of projectIds)
      await setMembership(database.db, { projectId, userId: user.id, role: 'reader' });
    return user.id;
  }

  function issue(userId: number, ...args: string[]) {
    const issued = admin('issue-token', '--user', String(userId), '--expires-in', '1h', ...args);
    assert.equal(issued.code, 0, issued.err);
    const tokenId = /\(token id ([0-9a-f-]{36})\)/.exec(issued.out)?.[1] as string;
    return { token: issued.out.trim().split('\n').at(-1) as string, tokenId };
  }

  it('revoke-token: the token is refused by both API processes as soon as the command returns', async () => {
    const userId = await member([projectA]);
    const revoked = issue(userId);
    const kept = issue(userId);
    assert.deepEqual(await answers(revoked.token), ACCEPTED);

    const result = admin('revoke-token', '--token-id', revoked.tokenId);
    assert.equal(result.code, 0, result.err);
    assert.match(result.out, new RegExp(`^access token ${revoked.tokenId} of user ${userId} revoked \\(it expires `));
    assert.deepEqual(await answers(revoked.token), REFUSED);
    assert.deepEqual(await answers(kept.token), ACCEPTED, "the user's other token still works");

    const again = admin('revoke-token', '--token-id', revoked.tokenId.toUpperCase());
    assert.equal(again.code, 0, again.err);
    assert.match(again.out, /was already revoked \(\d{4}-/);
  });

  it('revoke-user-tokens: every token issued to the user until then is refused, also those never recorded', async () => {
    const userId = await member([projectA]);
    const recorded = issue(userId);
    // Signed without a record, as tokens were before token ids were recorded.
    const unrecorded = signAccessToken(tokenSigningKey, { userId, expiresInSeconds: 3600 }).token;
    const other = issue(await member([projectA]));
    assert.deepEqual(await answers(unrecorded), ACCEPTED);

    const result = admin('revoke-user-tokens', '--user', String(userId));
    assert.equal(result.code, 0, result.err);
    assert.match(result.out, new RegExp(`^every access token of user ${userId} issued before \\d{4}-.+ is revoked`));
    for (const token of [recorded.token, unrecorded]) assert.deepEqual(await answers(token), REFUSED);
    assert.deepEqual(await answers(other.token), ACCEPTED, "another user's token still works");
    // A token issued after the revocation (from the next second on: tokens carry whole seconds) works.
    const later = signAccessToken(tokenSigningKey, { userId, expiresInSeconds: 3600, now: Date.now() + 1000 });
    assert.deepEqual(await answers(later.token), ACCEPTED);
  });

  it('remove-member: the user leaves the project and their tokens are refused by both API processes', async () => {
    const userId = await member([projectA, projectB]);
    const limited = issue(userId, '--project', String(projectA));
    const any = issue(userId);
    assert.deepEqual(await answers(any.token, projectB), ACCEPTED);

    const result = admin('remove-member', '--project', String(projectA), '--user', String(userId));
    assert.equal(result.code, 0, result.err);
    assert.deepEqual(result.out.trim().split('\n'), [
      `user ${userId} removed from project ${projectA}; every access token of theirs is revoked`,
      `still a member of project ${projectB}: issue them a new token for those`,
    ]);
    assert.deepEqual(await answers(limited.token), REFUSED);
    assert.deepEqual(await answers(any.token, projectB), REFUSED);
    const { rows } = await database.db.query('SELECT project_id FROM memberships WHERE user_id = $1', [userId]);
    assert.deepEqual(rows, [{ project_id: projectB }]);
    // Added back, the user's old tokens stay revoked; a new one acts in the project again.
    await setMembership(database.db, { projectId: projectA, userId, role: 'reader' });
    assert.deepEqual(await answers(limited.token), REFUSED);
    const fresh = signAccessToken(tokenSigningKey, { userId, expiresInSeconds: 600, now: Date.now() + 1000 });
    assert.deepEqual(await answers(fresh.token, projectA), ACCEPTED);
  });

  it('prunes rows once their tokens have expired (and some minutes more), and keeps the others', async () => {
    const userId = await member([projectA]);
    const hourAgo = Date.now() - 3_600_000;
    const longExpired = await issueAccessToken(database.db, tokenSigningKey, {
      userId,
      expiresInSeconds: 60,
      now: hourAgo,
    });
    const ids = async () => {
      const { rows } = await database.db.query<{ jti: string }>('SELECT jti FROM access_tokens WHERE user_id = $1', [
        userId,
      ]);
      return rows.map((r) => r.jti).sort();
    };
    assert.deepEqual(await ids(), [longExpired.claims.jti]);

    // Each write to the table prunes first: here the next two issues.
    const justExpired = await issueAccessToken(database.db, tokenSigningKey, {
      userId,
      expiresInSeconds: 3600 - 60, // expired a minute ago: within the margin
      now: hourAgo,
    });
    const live = await issueAccessToken(database.db, tokenSigningKey, { userId, expiresInSeconds: 600 });
    assert.ok(PRUNE_AFTER_EXPIRY_SECONDS > 60 && PRUNE_AFTER_EXPIRY_SECONDS < 3540);
    const kept = [justExpired.claims.jti, live.claims.jti].sort();
    assert.deepEqual(await ids(), kept);
    assert.ok(await revokeAccessToken(database.db, live.claims.jti));
    assert.deepEqual(await ids(), kept);
    assert.equal(await revokeAccessToken(database.db, longExpired.claims.jti), undefined, 'forgotten once pruned');
    // The pruned token is refused as expired, as it would have been anyway.
    assert.deepEqual((await answers(longExpired.token)).map(String), Array(2).fill('401 ACCESS_TOKEN_EXPIRED'));
    assert.deepEqual(await answers(live.token), REFUSED);
    assert.equal(await pruneAccessTokens(database.db.pool), 0);
  });
});
