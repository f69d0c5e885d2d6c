import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '#api/app.ts';
import { createChains } from '#api/chain/chains.ts';
import { createTestDatabase, type TestDatabase } from '#api-testing/testDatabase.ts';
import { adminCli, subscriptionOf } from './helpers/adminCli.ts';

describe('admin CLI', () => {
  let database: TestDatabase;
  const masterKey = randomBytes(32).toString('base64');
  const tokenSigningKey = randomBytes(32);
  const settings = () => ({
    DATABASE_URL: database.url,
    MASTER_KEY: masterKey,
    TOKEN_SIGNING_KEY: tokenSigningKey.toString('base64'),
  });
  const admin = adminCli(settings);
  let app: ReturnType<typeof buildApp>;
  const get = async (url: string, headers: Record<string, string>) => {
    const res = await app.inject({ method: 'GET', url: `/public-api/v3${url}`, headers });
    return { status: res.statusCode, body: res.json() };
  };

  before(async () => {
    database = await createTestDatabase();
    app = buildApp({
      db: database.db,
      chains: createChains({}),
      tokenSigningKey,
      masterKey: randomBytes(32),
      bodyLimit: 65536,
    });
  });
  after(async () => {
    await app.close();
    await database.drop();
  });

  it('beside a running npm start, prints console links to its port (from DATA_DIR/npm-start.json)', () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'mountain-admin-data-'));
    try {
      const described = (pid: number) =>
        writeFileSync(
          path.join(dataDir, 'npm-start.json'),
          JSON.stringify({
            processes: [],
            platform: { pid, apiUrl: '', consoleUrl: '', docsUrl: '', env: { API_PORT: '18181' } },
          }),
        );
      assert.equal(admin('create-user', '--email', 'beside@example.com').code, 0);
      described(process.pid); // a running process stands for npm start
      const beside = adminCli(() => ({ ...settings(), DATA_DIR: dataDir }));
      const link = beside('console-link', '--user', 'beside@example.com');
      assert.equal(link.code, 0, link.err);
      assert.match(link.out, /http:\/\/127\.0\.0\.1:18181\/console\/sign-in#code=/);
      described(2 ** 22 + 1); // no such process: npm start is gone, the defaults apply
      const stale = beside('console-link', '--user', 'beside@example.com');
      assert.match(stale.out, /http:\/\/127\.0\.0\.1:8080\/console\/sign-in#code=/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('creates a project and prints its key once; the key works', async () => {
    const { code, out } = admin('create-project', '--name', 'CLI project');
    assert.equal(code, 0);
    const key = /API key \(shown once, store it now\): (mtn_test_\w+)/.exec(out)?.[1];
    assert.ok(key, out);
    const res = await get('/project/get-project-detail', { 'x-api-key': key });
    assert.equal(res.body.data.project.projectName, 'CLI project');
    assert.equal(res.body.data.mSystemWalletMainnet.ownerType, 'dedicated', 'dedicated by default');
  });

  it('rotates a key, creates a user and a member, and issues a token that works with the right role', async () => {
    const created = admin('create-project', '--name', 'Rotated', '--owner-type', 'shared', '--allow-shared-wallet');
    assert.equal(created.code, 0, created.err);
    const projectId = /project (\d+)/.exec(created.out)?.[1] as string;
    const oldKey = /(mtn_test_\w+)/.exec(created.out)?.[1] as string;
    const rotated = admin('rotate-key', '--project', projectId);
    const newKey = /(mtn_test_\w+)/.exec(rotated.out)?.[1] as string;
    assert.equal((await get('/project/get-project-detail', { 'x-api-key': oldKey })).status, 401);
    assert.equal((await get('/project/get-project-detail', { 'x-api-key': newKey })).status, 200);

    assert.equal(admin('create-user', '--email', 'Ada@Example.com').code, 0);
    assert.equal(admin('add-member', '--project', projectId, '--user', 'ada@example.com', '--role', 'reader').code, 0);
    const issued = admin('issue-token', '--user', 'ada@example.com', '--project', projectId, '--expires-in', '1h');
    assert.equal(issued.code, 0, issued.err);
    const token = issued.out.trim().split('\n').at(-1) as string;
    // The token id it prints is the token's jti, the id revoke-token takes.
    const printedId = /^access token for user \d+ \(token id ([0-9a-f-]{36})\), expires /m.exec(issued.out)?.[1];
    const claims = JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString());
    assert.equal(printedId, claims.jti);
    const detail = await get('/project/get-project-detail', { authorization: `Bearer ${token}` });
    assert.equal(detail.body.data.project.projectName, 'Rotated');
    assert.equal(detail.body.data.mSystemWalletTestnet.ownerType, 'shared');
    const projects = await get('/project/get-projects', { authorization: `Bearer ${token}` });
    assert.equal(projects.body.meta.totalItems, 1);
  });

  it("stops and resumes a subscription's scanning (set-scan)", async () => {
    const created = admin('create-project', '--name', 'Scanning');
    const key = /(mtn_test_\w+)/.exec(created.out)?.[1] as string;
    const id = await subscriptionOf(app, key);
    const state = async () => {
      const list = await get('/event-notifier/get-subscriptions', { 'x-api-key': key });
      const s = list.body.eventNotifierSubscriptions.find((x: { id: string }) => x.id === id);
      const jobs = await database.db.query(
        `SELECT run_at FROM graphile_worker.jobs WHERE key = $1 AND locked_at IS NULL`,
        [`event-notifier:scan:${id}`],
      );
      return { scanEnabled: s.scanEnabled, nextScanAt: s.nextScanAt, queued: jobs.rows.length };
    };

    const stopped = admin('set-scan', '--subscription', id, '--enabled', 'false');
    assert.equal(stopped.code, 0, stopped.err);
    assert.match(stopped.out, /scanning stopped/);
    assert.deepEqual(await state(), { scanEnabled: false, nextScanAt: null, queued: 1 });

    const resumed = admin('set-scan', '--subscription', id, '--enabled', 'true');
    assert.equal(resumed.code, 0, resumed.err);
    const after = await state();
    assert.equal(after.scanEnabled, true);
    assert.ok(Date.parse(after.nextScanAt) <= Date.now(), 'due at once');
    assert.equal(after.queued, 1, 'one scan job queued (the key collapses it with the queued one)');
  });

  const usageErrors: [string[], RegExp][] = [
    [[], /a command is required/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [['create-project'], /--name is required/],
    [['create-project', '--name', 'X', '--owner-type', 'mine'], /--owner-type must be one of dedicated, shared/],
    [
      ['create-project', '--name', 'X', '--owner-type', 'shared'],
      /--owner-type shared needs --allow-shared-wallet: any project on the shared wallet can act as the others toward contracts that trust its address/,
    ],
    [['create-project', '--name', 'X', '--wallet-type', 'fireblocks'], /Fireblocks custody is not configured/],
    [['rotate-key'], /--project is required/],
    [['rotate-key', '--project', 'abc'], /--project must be a positive integer/],
    [['create-user', '--email', 'not-an-email'], /--email is not an email address/],
    [['create-user', '--email', 'dup@example.com'], /^$/],
    [['create-user', '--email', 'dup@example.com'], /that already exists/],
    [
      ['add-member', '--project', '1', '--user', 'nobody@example.com', '--role', 'reader'],
      /no user "nobody@example.com"/,
    ],
    [
      ['add-member', '--project', '1', '--user', 'dup@example.com', '--role', 'owner'],
      /--role must be one of admin, editor, reader/,
    ],
    [['add-member', '--project', '99999', '--user', 'dup@example.com', '--role', 'reader'], /no such project or user/],
    [['issue-token', '--user', 'dup@example.com', '--expires-in', '90d'], /at most 30d/],
    [['issue-token', '--bogus'], /Unknown option '--bogus'/],
    [['remove-member', '--user', 'dup@example.com'], /--project is required/],
    [['remove-member', '--project', '1'], /--user is required/],
    [['remove-member', '--project', '1', '--user', 'nobody@example.com'], /no user "nobody@example.com"/],
    [['remove-member', '--project', '99999', '--user', 'dup@example.com'], /no project 99999/],
    [['remove-member', '--project', '1', '--user', 'dup@example.com'], /user \d+ is not a member of project 1/],
    [['revoke-token'], /--token-id is required/],
    [['revoke-token', '--token-id', 'abc'], /--token-id must be a token id \(a uuid, as issue-token printed it\)/],
    [
      ['revoke-token', '--token-id', '3e7a9c1b-2d4f-4a6b-8c0d-e1f2a3b4c5d6'],
      /no access token "3e7a9c1b-2d4f-4a6b-8c0d-e1f2a3b4c5d6": none was issued with that id, or it has expired/,
    ],
    [['revoke-user-tokens'], /--user is required/],
    [['revoke-user-tokens', '--user', 'nobody@example.com'], /no user "nobody@example.com"/],
    [['set-scan', '--enabled', 'true'], /--subscription is required/],
    [['set-scan', '--subscription', 'abc', '--enabled', 'true'], /--subscription must be a subscription id/],
    [['set-scan', '--subscription', '3e7a9c1b-2d4f-4a6b-8c0d-e1f2a3b4c5d6'], /--enabled is required/],
    [
      ['set-scan', '--subscription', '3e7a9c1b-2d4f-4a6b-8c0d-e1f2a3b4c5d6', '--enabled', 'yes'],
      /--enabled must be one of true, false/,
    ],
    [
      ['set-scan', '--subscription', '3e7a9c1b-2d4f-4a6b-8c0d-e1f2a3b4c5d6', '--enabled', 'false'],
      /no subscription "3e7a9c1b-2d4f-4a6b-8c0d-e1f2a3b4c5d6"/,
    ],
  ];
  for (const [args, message] of usageErrors) {
    it(`${args.join(' ') || '(nothing)'} → ${message.source === '^$' ? 'ok' : 'usage error'}`, () => {
      const { code, err } = admin(...args);
      if (message.source === '^$') {
        assert.equal(code, 0, err);
        return;
      }
      assert.equal(code, 2, err);
      assert.match(err, message);
      assert.doesNotMatch(err, /at .*\.ts:\d+/, 'no stack trace for a usage error');
    });
  }
});
