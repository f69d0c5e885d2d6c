// The operations the developer console added to the API: the caller's role, the members, key rotation and the
// last day's statistics (transactions and webhook attempts), the scan switch and the wallets' balances.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startAnvil } from '@mountain/testkit/anvil.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { incrementsSubscription } from '@mountain/testkit/testContract.ts';
import { createChains } from '#api/chain/chains.ts';
import { walletBalances } from '#api/projects/walletBalances.ts';
import { apiKey, bearer, createHarness, type Harness } from '#api-testing/harness.ts';

const setBalance = async (url: string, address: string, wei: string) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_setBalance', params: [address, wei] }),
  });
  assert.equal(res.status, 200);
};

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

  it('get-statistics counts the webhook attempts of the last 24 hours by outcome', async () => {
    const attempt = (outcome: string, hoursAgo: number, project = projectId) =>
      h.db.query(
        `INSERT INTO webhook_attempts (project_id, message_id, endpoint_id, event_type, url, attempted_at, outcome,
           duration_ms)
         VALUES ($1, gen_random_uuid(), gen_random_uuid(), 'transaction.succeeded', 'https://example.com/hook',
           now() - make_interval(hours => $2), $3, 12)`,
        [project, hoursAgo, outcome],
      );
    for (const outcome of ['delivered', 'delivered', 'http_error', 'timeout', 'connection_error', 'refused']) {
      await attempt(outcome, 0);
    }
    await attempt('delivered', 5);
    await attempt('delivered', 25); // older than the window
    await attempt('delivered', 0, (await h.project('Other attempts')).project.id);
    const { body } = await h.call('get-statistics', { headers: bearer(reader.token) });
    type Hour = { delivered: number; httpError: number; timeout: number; connectionError: number; refused: number };
    const hours = body.statistics.webhookAttemptsPerHour as Hour[];
    assert.equal(hours.length, 24);
    const counts = (x: Hour) => [x.delivered, x.httpError, x.timeout, x.connectionError, x.refused];
    assert.deepEqual(counts(hours[23] as Hour), [2, 1, 1, 1, 1]);
    assert.deepEqual(counts(hours[18] as Hour), [1, 0, 0, 0, 0]);
    assert.equal(
      hours.reduce((sum, x) => sum + counts(x).reduce((a, b) => a + b, 0), 0),
      7,
      'nothing older than 24 hours, nothing of another project',
    );
  });

  it('update-subscription-scan stops scanning and resumes it, for writers only', async () => {
    const created = await h.call('create-subscription', {
      headers: apiKey(key),
      body: incrementsSubscription('0x5FbDB2315678afecb367f032d93F642f64180aa3', { subscriptionName: 'Switch' }),
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.eventNotifierSubscription.id as string;
    const refused = await h.call('update-subscription-scan', {
      headers: bearer(reader.token),
      body: { id, scanEnabled: false },
    });
    assert.equal(refused.status, 403);
    const stopped = await h.call('update-subscription-scan', {
      headers: bearer(editor.token),
      body: { id, scanEnabled: false },
    });
    assert.equal(stopped.status, 200, JSON.stringify(stopped.body));
    assert.equal(stopped.body.eventNotifierSubscription.scanEnabled, false);
    assert.equal(stopped.body.eventNotifierSubscription.nextScanAt, null);
    await h.db.query("DELETE FROM graphile_worker._private_jobs WHERE key LIKE 'event-notifier:scan:%'");
    const resumed = await h.call('update-subscription-scan', { headers: apiKey(key), body: { id, scanEnabled: true } });
    assert.equal(resumed.body.eventNotifierSubscription.scanEnabled, true);
    assert.ok(resumed.body.eventNotifierSubscription.nextScanAt, 'due at once');
    const queued = await h.db.query('SELECT 1 FROM graphile_worker._private_jobs WHERE key = $1', [
      `event-notifier:scan:${id}`,
    ]);
    assert.equal(queued.rowCount, 1, 'a scan is queued');
    const missing = await h.call('update-subscription-scan', {
      headers: apiKey(key),
      body: { id: '00000000-0000-4000-8000-000000000000', scanEnabled: true },
    });
    assert.equal(missing.status, 404);
    const malformed = await h.call('update-subscription-scan', {
      headers: apiKey(key),
      body: { id, scanEnabled: 'no' },
    });
    assert.equal(malformed.status, 400);
    assert.match(malformed.body.message, /body\.scanEnabled/);
  });

  it('wallet balances: read on each configured network of the wallet’s type, a silent network named', async () => {
    const anvil = await startAnvil({ port: await freePort() });
    try {
      const closed = `http://127.0.0.1:${await freePort()}`;
      const chains = createChains({ 1337: anvil.url, 11155111: closed, 1: closed });
      const { rows } = await h.db.query<{ address: string }>(
        'SELECT w.address FROM projects p JOIN system_wallets w ON w.id = p.wallet_testnet_id WHERE p.id = $1',
        [projectId],
      );
      const address = rows[0]?.address as `0x${string}`;
      await setBalance(anvil.url, address, '0xde0b6b3a7640000');
      const balances = await walletBalances(h.db, chains, projectId);
      const byNetwork = (networkId: number, type: 'mainnet' | 'testnet') =>
        balances.filter((b) => b.networkId === networkId && (type === 'testnet') === (b.address === address));
      assert.equal(balances.length, 3, 'the mainnet wallet on 1, the testnet wallet on 11155111 and 1337');
      assert.deepEqual(
        byNetwork(1337, 'testnet').map((b) => [b.balance, b.error]),
        [['1000000000000000000', null]],
      );
      const silent = byNetwork(11155111, 'testnet')[0];
      assert.equal(silent?.balance, null);
      assert.match(silent?.error ?? '', /^The balance could not be read: /);
      assert.equal(byNetwork(1, 'mainnet')[0]?.balance, null);
      // Read again within the cache's time: the same answer, without asking the chain again.
      await setBalance(anvil.url, address, '0x1');
      const again = await walletBalances(h.db, chains, projectId);
      assert.equal(again.find((b) => b.networkId === 1337)?.balance, '1000000000000000000');
    } finally {
      await anvil.stop();
    }
  });
});
