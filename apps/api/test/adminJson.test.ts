import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '#api/app.ts';
import { createChains } from '#api/chain/chains.ts';
import { REPO_ROOT } from '#api/config/config.ts';
import { createTestDatabase, type TestDatabase } from '#api-testing/testDatabase.ts';
import { ADMIN_BIN, adminCli, subscriptionOf } from './helpers/adminCli.ts';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('admin CLI as a tool: mountain-admin, --json, list commands', () => {
  let database: TestDatabase;
  const tokenSigningKey = randomBytes(32);
  const masterKey = randomBytes(32).toString('base64');
  const admin = adminCli(() => ({
    DATABASE_URL: database.url,
    MASTER_KEY: masterKey,
    TOKEN_SIGNING_KEY: tokenSigningKey.toString('base64'),
  }));
  /** Runs a command with --json and parses the one document it prints. */
  const json = (...args: string[]) => {
    const { code, out, err } = admin(...args, '--json');
    assert.equal(code, 0, err);
    return JSON.parse(out);
  };
  const covered = new Set<string>();
  const run = (command: string, ...args: string[]) => {
    covered.add(command);
    return json(command, ...args);
  };

  before(async () => {
    database = await createTestDatabase();
  });
  after(() => database.drop());

  it('is the bin of @mountain/api, linked by npm as mountain-admin', () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'apps/api/package.json'), 'utf8'));
    assert.deepEqual(pkg.bin, { 'mountain-admin': 'bin/mountain-admin.js' });
    const help = admin('--help');
    assert.equal(help.code, 0, help.err);
    assert.match(help.out, /^Usage: mountain-admin <command> \[options\] \[--json\]/);
    assert.ok(ADMIN_BIN.endsWith('node_modules/.bin/mountain-admin'));
  });

  it('every command answers one JSON document with --json, and the lists show what the others did', async () => {
    const created = run('create-project', '--name', 'Tooling');
    assert.deepEqual(Object.keys(created), ['project', 'apiKey']);
    assert.equal(created.project.projectName, 'Tooling');
    assert.match(created.apiKey, /^mtn_test_\w{44}$/);
    const projectId = created.project.id as number;
    const rotated = run('rotate-key', '--project', String(projectId));
    assert.equal(rotated.projectId, projectId);
    assert.notEqual(rotated.apiKey, created.apiKey);
    // Every secret is already sealed under the only key: nothing to re-seal, done.
    const masterKeyRotation = run('rotate-master-key');
    assert.equal(masterKeyRotation.done, true);
    assert.deepEqual(masterKeyRotation.keyIds, [masterKeyRotation.currentKeyId]);
    assert.ok(masterKeyRotation.columns.every((c: { resealed: number }) => c.resealed === 0));

    const user = run('create-user', '--email', 'Tool@Example.com', '--name', 'Tool User').user;
    assert.deepEqual(user, { id: user.id, email: 'tool@example.com', name: 'Tool User' });
    assert.deepEqual(
      run('add-member', '--project', String(projectId), '--user', 'tool@example.com', '--role', 'editor'),
      {
        projectId,
        userId: user.id,
        role: 'editor',
      },
    );
    const issued = run('issue-token', '--user', String(user.id), '--project', String(projectId), '--expires-in', '1h');
    assert.deepEqual(Object.keys(issued), ['userId', 'projectId', 'tokenId', 'expiresAt', 'accessToken']);
    assert.equal(issued.projectId, projectId);
    assert.match(issued.expiresAt, ISO);
    const claims = JSON.parse(Buffer.from(issued.accessToken.split('.')[1], 'base64url').toString());
    assert.equal(claims.jti, issued.tokenId);
    const link = run('console-link', '--user', 'tool@example.com', '--project', String(projectId));
    assert.deepEqual(Object.keys(link), ['userId', 'projectId', 'expiresAt', 'link']);
    assert.deepEqual([link.userId, link.projectId], [user.id, projectId]);
    assert.match(link.expiresAt, ISO);
    assert.match(link.link, /\/sign-in#code=[A-Za-z0-9_-]+$/);

    const { projects } = run('list-projects');
    const listed = projects.find((p: { id: number }) => p.id === projectId);
    assert.deepEqual(
      { ...listed, createdAt: 'x', walletMainnet: 'x', walletTestnet: 'x' },
      {
        id: projectId,
        projectName: 'Tooling',
        apiKey: `${rotated.apiKey.slice(0, 21)}********`,
        walletMainnet: 'x',
        walletTestnet: 'x',
        members: 1,
        createdAt: 'x',
      },
    );
    assert.match(listed.createdAt, ISO);
    assert.match(listed.walletMainnet.address, /^0x[0-9a-fA-F]{40}$/);
    assert.equal(listed.walletTestnet.ownerType, 'dedicated');
    assert.ok(!JSON.stringify(projects).includes(rotated.apiKey), 'keys are listed masked');

    const { users } = run('list-users');
    const listedUser = users.find((u: { id: number }) => u.id === user.id);
    assert.deepEqual(listedUser.projects, [{ projectId, role: 'editor' }]);
    const members = run('list-members', '--project', String(projectId));
    assert.equal(members.projectId, projectId);
    assert.deepEqual(
      members.members.map((m: { userId: number; email: string; role: string }) => [m.userId, m.email, m.role]),
      [[user.id, 'tool@example.com', 'editor']],
    );
    assert.match(members.members[0].since, ISO);

    const app = buildApp({
      db: database.db,
      chains: createChains({}),
      tokenSigningKey,
      masterKey: randomBytes(32),
      bodyLimit: 65536,
    });
    const subscriptionId = await subscriptionOf(app, rotated.apiKey).finally(() => app.close());
    assert.deepEqual(run('set-scan', '--subscription', subscriptionId, '--enabled', 'false'), {
      subscriptionId,
      scanEnabled: false,
    });
    // A transaction not sent yet, as the API accepts it: cancel-transaction ends it at once.
    const { rows } = await database.db.query<{ wallet: number }>(
      'SELECT wallet_testnet_id AS wallet FROM projects WHERE id = $1',
      [projectId],
    );
    const contract = await database.db.query<{ id: number }>(
      `INSERT INTO contracts (project_id, network_id, address, formatted_abi)
       VALUES ($1, 1337, '0x5FbDB2315678afecb367f032d93F642f64180aa3', '["function f()"]') RETURNING id`,
      [projectId],
    );
    const fn = await database.db.query<{ id: number }>(
      `INSERT INTO contract_activated_functions (contract_id, formatted_abi_function, signature)
       VALUES ($1, 'function f()', 'f()') RETURNING id`,
      [contract.rows[0]?.id],
    );
    const waiting = await database.db.query<{ id: string }>(
      `INSERT INTO transactions (project_id, contract_activated_function_id, system_wallet_id, network_id,
         function_args, to_address, data, status, idempotency_key, request_hash)
       VALUES ($1, $2, $3, 1337, '[]', '0x5FbDB2315678afecb367f032d93F642f64180aa3', '0x26121ff0', 'created',
         gen_random_uuid()::text, 'h') RETURNING id`,
      [projectId, fn.rows[0]?.id, rows[0]?.wallet],
    );
    const cancelled = run('cancel-transaction', '--transaction', waiting.rows[0]?.id as string).transaction;
    assert.deepEqual(
      [cancelled.id, cancelled.status, cancelled.errorMessage, cancelled.transactionHash],
      [waiting.rows[0]?.id, 'cancelled', 'Cancelled by cancel-transaction', null],
    );
    const revoked = run('revoke-token', '--token-id', issued.tokenId);
    assert.deepEqual(
      { ...revoked, expiresAt: 'x' },
      { tokenId: issued.tokenId, userId: user.id, alreadyRevoked: false, expiresAt: 'x' },
    );
    assert.equal(run('revoke-token', '--token-id', issued.tokenId).alreadyRevoked, true);
    const everyToken = run('revoke-user-tokens', '--user', 'tool@example.com');
    assert.equal(everyToken.userId, user.id);
    assert.match(everyToken.revokedBefore, ISO);
    assert.deepEqual(run('remove-member', '--project', String(projectId), '--user', String(user.id)), {
      projectId,
      userId: user.id,
      otherProjects: [],
    });
    assert.deepEqual(run('list-members', '--project', String(projectId)).members, []);

    // Every command of the usage text was run above.
    const usage = admin('--help').out;
    const commands = [...usage.matchAll(/^ {2}([a-z]+(?:-[a-z]+)+)\b/gm)].map((m) => m[1]);
    assert.ok(commands.length >= 12, commands.join(' '));
    assert.deepEqual(
      commands.filter((c) => !covered.has(c as string)),
      [],
    );
  });

  it('prints the lists as columns for a person', () => {
    const projects = admin('list-projects');
    assert.equal(projects.code, 0, projects.err);
    const [header, ...rows] = projects.out.trimEnd().split('\n');
    assert.match(header as string, /^ID +NAME +API KEY +WALLETS +CUSTODY +MEMBERS +CREATED$/);
    assert.ok(
      rows.some((r) => /^\d+ +Tooling +mtn_test_\w{12}\*{8} +dedicated +from-mnemonic +0 +\d{4}-/.test(r)),
      rows.join('\n'),
    );
    assert.match(
      admin('list-users').out,
      /^ID +EMAIL +NAME +PROJECTS +CREATED\n\d+ +tool@example\.com +Tool User +- +/,
    );
  });

  it('with --json, a usage error is a JSON document on stderr (exit 2), and stdout stays empty', () => {
    for (const args of [['list-members'], ['list-members', '--project', '99999'], ['frobnicate']]) {
      const { code, out, err } = admin(...args, '--json');
      assert.equal(code, 2, err);
      assert.equal(out, '');
      const { error } = JSON.parse(err);
      assert.match(error, /--project is required|no project 99999|unknown command "frobnicate"/);
    }
  });
});
