// The operations the developer console added to the API: the caller's role, the members, key rotation and the
// last day's statistics.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiKey, bearer, createHarness, type Harness } from '#api-testing/harness.ts';

describe('console operations', () => {
  let h: Harness;
  let projectId: number;
  let key: string;
  let reader: { userId: number; token: string };
  let editor: { userId: number; token: string };

  before(async () => {
    h = await createHarness();
    const created = await h.project('Console');
    projectId = created.project.id;
    key = created.apiKey;
    reader = await h.member(projectId, 'reader');
    editor = await h.member(projectId, 'editor');
  });
  after(() => h.close());

  it('get-project-detail says how the caller is signed in and with which role', async () => {
    const byKey = await h.call('get-project-detail', { headers: apiKey(key) });
    assert.deepEqual(byKey.body.caller, { credential: 'apiKey', role: 'admin' });
    const byReader = await h.call('get-project-detail', { headers: bearer(reader.token) });
    assert.deepEqual(byReader.body.caller, { credential: 'accessToken', role: 'reader' });
  });

  it('get-project-members lists each member with their role, to every role', async () => {
    const { status, body } = await h.call('get-project-members', { headers: bearer(reader.token) });
    assert.equal(status, 200);
    assert.deepEqual(
      body.members.map((m: { userId: number; role: string }) => [m.userId, m.role]),
      [
        [reader.userId, 'reader'],
        [editor.userId, 'editor'],
      ],
    );
  });

  it('rotate-api-key is for admins; the new key works at once and the old one is refused', async () => {
    const refused = await h.call('rotate-api-key', { headers: bearer(editor.token) });
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.body.requiredRoles, ['admin']);
    const rotated = await h.call('rotate-api-key', { headers: apiKey(key) });
    assert.equal(rotated.status, 201);
    assert.match(rotated.body.apiKey, /^mtn_test_/);
    assert.equal((await h.call('get-project-detail', { headers: apiKey(key) })).status, 401);
    assert.equal((await h.call('get-project-detail', { headers: apiKey(rotated.body.apiKey) })).status, 200);
    key = rotated.body.apiKey;
  });

  it('get-statistics counts the last 24 hours of this project only, by hour and final status', async () => {
    const { rows } = await h.db.query<{ wallet: number }>(
      'SELECT wallet_testnet_id AS wallet FROM projects WHERE id = $1',
      [projectId],
    );
    const wallet = rows[0]?.wallet as number;
    const contract = await h.db.query<{ id: number }>(
      `INSERT INTO contracts (project_id, network_id, address, formatted_abi)
       VALUES ($1, 1337, '0x5FbDB2315678afecb367f032d93F642f64180aa3', '["function f()"]') RETURNING id`,
      [projectId],
    );
    const fn = await h.db.query<{ id: number }>(
      `INSERT INTO contract_activated_functions (contract_id, formatted_abi_function, signature)
       VALUES ($1, 'function f()', 'f()') RETURNING id`,
      [contract.rows[0]?.id],
    );
    const insert = (status: string, hoursAgo: number, project = projectId) =>
      h.db.query(
        `INSERT INTO transactions (project_id, contract_activated_function_id, system_wallet_id, network_id,
           function_args, to_address, data, status, idempotency_key, request_hash, created_at)
         VALUES ($1, $2, $3, 1337, '[]', '0x5FbDB2315678afecb367f032d93F642f64180aa3', '0x26121ff0', $4,
           gen_random_uuid()::text, 'h', now() - make_interval(hours => $5))`,
        [project, fn.rows[0]?.id, wallet, status, hoursAgo],
      );
    for (const status of ['succeeded', 'succeeded', 'reverted', 'broadcast-failed', 'monitor-failed', 'created']) {
      await insert(status, 0);
    }
    await insert('succeeded', 3);
    await insert('processing', 3);
    await insert('succeeded', 30); // older than the window
    const other = (await h.project('Elsewhere')).project.id;
    await insert('succeeded', 0, other); // another project's

    const { status, body } = await h.call('get-statistics', { headers: bearer(reader.token) });
    assert.equal(status, 200);
    type Hour = { hour: string; succeeded: number; reverted: number; failed: number; pending: number };
    const hours = body.statistics.transactionsPerHour as Hour[];
    assert.equal(hours.length, 24);
    assert.ok(Date.parse(hours[23]?.hour as string) <= Date.now());
    assert.ok(Date.now() - Date.parse(hours[23]?.hour as string) < 3_600_000, 'the last entry is the current hour');
    const counts = (x: Hour) => [x.succeeded, x.reverted, x.failed, x.pending];
    assert.deepEqual(counts(hours[23] as Hour), [2, 1, 2, 1]);
    assert.deepEqual(counts(hours[20] as Hour), [1, 0, 0, 1]);
    const total = hours.reduce((sum, x) => sum + x.succeeded + x.reverted + x.failed + x.pending, 0);
    assert.equal(total, 8, 'nothing older than 24 hours, nothing of another project');
  });
});
