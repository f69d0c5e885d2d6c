import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import { createHarness } from '#api-testing/harness.ts';
import { settled } from '#api-testing/transactionFlow.ts';
import { type FireblocksPlatform, startFireblocksPlatform } from './fireblocksFixture.ts';

// Polling a row's status once every ten minutes: in these tests only webhooks can move a row in time.
const NO_POLLING = { pollIntervalMs: 600_000 };

describe('Fireblocks webhooks from the simulated workspace move rows at once', () => {
  let f: FireblocksPlatform;
  before(async () => {
    f = await startFireblocksPlatform({ webhooks: true, settings: NO_POLLING });
  });
  after(async () => {
    await f?.stop();
  });

  it('a transaction follows Fireblocks’ webhooks to succeeded, with no status poll', async () => {
    const p = await f.project(['increment']);
    const polls = f.sim.requests['GET /transactions/{txId}'] ?? 0;
    const res = await f.h.call('execute-transaction', {
      headers: p.headers,
      body: { contractActivatedFunctionId: p.ids.increment, functionArgs: ['2'], idempotencyKey: 'hooked' },
    });
    const tx = await settled(f.h, p.headers, res.body.transaction.id);
    assert.equal(tx.status, 'succeeded', tx.errorMessage);
    assert.equal(f.sim.requests['GET /transactions/{txId}'] ?? 0, polls, 'no status poll was needed');
  });
});

describe('POST /webhooks/fireblocks: signatures, bounds, and what it ignores', () => {
  const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
  let f: FireblocksPlatform;
  let p: Awaited<ReturnType<FireblocksPlatform['project']>>;

  before(async () => {
    f = await startFireblocksPlatform({
      settings: { ...NO_POLLING, webhookPublicKey: keys.publicKey.export({ type: 'spki', format: 'pem' }).toString() },
    });
    p = await f.project(['increment']);
  });
  after(async () => {
    await f?.stop();
  });

  const post = (body: string, headers: Record<string, string>) =>
    f.h.app.inject({ method: 'POST', url: '/webhooks/fireblocks', payload: body, headers });
  const signed = (body: string, key = keys.privateKey) => ({
    'content-type': 'application/json',
    'fireblocks-signature': sign('RSA-SHA512', Buffer.from(body), key).toString('base64'),
  });
  const event = (data: unknown) =>
    JSON.stringify({ type: 'TRANSACTION_STATUS_UPDATED', tenantId: 'tenant', timestamp: Date.now(), data });

  const custodyOf = async (id: string) =>
    (await f.h.call('get-transaction', { headers: p.headers, query: { transactionId: id } })).body.transaction.custody;

  async function pendingAuthorization() {
    f.sim.faults.set({ approvalRequired: true });
    const res = await f.h.call('execute-transaction', {
      headers: p.headers,
      body: { contractActivatedFunctionId: p.ids.increment, functionArgs: ['1'], idempotencyKey: `pa-${Date.now()}` },
    });
    const id = res.body.transaction.id as string;
    // The create's own answer (SUBMITTED) is recorded; the simulator moves on without telling anyone.
    const custodian = await waitFor(
      async () => f.sim.transactions().find((t) => t.externalTxId === id && t.status === 'PENDING_AUTHORIZATION'),
      10_000,
    );
    f.sim.faults.clear();
    // …once the platform has recorded that answer (the worker may be slower than the simulator).
    await waitFor(async () => ((await custodyOf(id)).id === custodian.id ? true : undefined), 10_000);
    return { id, custodian };
  }

  it('refuses an unsigned, a wrongly signed, a non-canonically encoded signature and a tampered body with 401, changing nothing', async () => {
    const { id, custodian } = await pendingAuthorization();
    const body = event(custodian);
    const before = await custodyOf(id);
    for (const headers of [
      { 'content-type': 'application/json' },
      signed(body, other.privateKey),
      { ...signed(body), 'fireblocks-signature': 'bm90IGEgc2lnbmF0dXJl' },
    ]) {
      const res = await post(body, headers);
      assert.equal(res.statusCode, 401);
      assert.equal(res.json().code, 'WEBHOOK_SIGNATURE_INVALID');
    }
    // The same signature's bytes written another way: without its padding, with the last character's unused bits
    // set, or with a space in it.
    const canonical = signed(body)['fireblocks-signature'];
    const last = canonical.replace(/=+$/, '');
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const sibling = alphabet[alphabet.indexOf(last.at(-1) as string) + 1] as string;
    for (const variant of [
      last,
      `${last.slice(0, -1)}${sibling}${canonical.slice(last.length)}`,
      `${canonical.slice(0, 64)} ${canonical.slice(64)}`,
    ]) {
      assert.deepEqual(Buffer.from(variant, 'base64'), Buffer.from(canonical, 'base64'), 'the same bytes');
      const res = await post(body, { ...signed(body), 'fireblocks-signature': variant });
      assert.equal(res.statusCode, 401, variant);
      assert.equal(res.json().code, 'WEBHOOK_SIGNATURE_INVALID');
    }
    const tampered = await post(body.replace('PENDING_AUTHORIZATION', 'COMPLETED'), signed(body));
    assert.equal(tampered.statusCode, 401);
    assert.deepEqual(await custodyOf(id), before);
  });

  it('a signed status update for one of ours moves it at once; others are answered 200 ignored', async () => {
    const { id, custodian } = await pendingAuthorization();
    assert.notEqual((await custodyOf(id)).status, 'PENDING_AUTHORIZATION', 'no poll told the platform yet');
    const body = event(custodian);
    const res = await post(body, signed(body));
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().status, 'applied');
    assert.equal((await custodyOf(id)).status, 'PENDING_AUTHORIZATION');
    for (const data of [
      { ...custodian, externalTxId: '00000000-0000-4000-8000-000000000000' },
      { ...custodian, externalTxId: undefined },
    ]) {
      const unknown = event(data);
      const answer = await post(unknown, signed(unknown));
      assert.equal(answer.statusCode, 200);
      assert.equal(answer.json().status, 'ignored');
    }
    const other = JSON.stringify({ type: 'VAULT_ACCOUNT_ADDED', tenantId: 't', timestamp: 1, data: { id: '1' } });
    assert.equal((await post(other, signed(other))).json().status, 'ignored');
  });

  it('a burst of events for one row, arriving at once in any order, leaves the newest; each is answered applied (a repeat: applied or duplicate)', async () => {
    const { id, custodian } = await pendingAuthorization();
    const at = Number(custodian.lastUpdated);
    // Sent newest first: whatever waits and merges, the custodian's clock decides.
    const burst = [
      { status: 'PENDING_SIGNATURE', lastUpdated: at + 3 },
      { status: 'QUEUED', lastUpdated: at + 2 },
      { status: 'PENDING_AUTHORIZATION', lastUpdated: at + 1 },
      { status: 'QUEUED', lastUpdated: at + 2 },
    ].map((change) => event({ ...custodian, ...change }));
    const answers = await Promise.all(burst.map((body) => post(body, signed(body))));
    for (const answer of answers) assert.equal(answer.statusCode, 200);
    // The second and the fourth are the same event: whichever comes after the other was applied is a duplicate.
    const statuses = answers.map((answer) => answer.json().status);
    assert.deepEqual([statuses[0], statuses[2]], ['applied', 'applied']);
    assert.deepEqual(
      [statuses[1], statuses[3]].sort(),
      statuses[1] === statuses[3] ? ['applied', 'applied'] : ['applied', 'duplicate'],
    );
    assert.equal((await custodyOf(id)).status, 'PENDING_SIGNATURE');
  });

  it('refuses an event outside its time window with 400, and one applied already changes nothing', async () => {
    const { id, custodian } = await pendingAuthorization();
    const at = Number(custodian.lastUpdated);
    const queued = { ...custodian, status: 'QUEUED', lastUpdated: at + 1 };
    const stamped = (timestamp: unknown, data: unknown) =>
      JSON.stringify({ type: 'TRANSACTION_STATUS_UPDATED', tenantId: 'tenant', timestamp, data });
    const before = await custodyOf(id);
    const hour = 60 * 60 * 1000;
    for (const [timestamp, reason] of [
      [Date.now() - 7 * hour, /is 420 minutes old/],
      [Date.now() + hour, /is 60 minutes ahead of this server/],
      [undefined, /is missing/],
    ] as const) {
      const body = stamped(timestamp, queued);
      const res = await post(body, signed(body));
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().code, 'WEBHOOK_TIMESTAMP_REFUSED');
      assert.match(res.json().message, reason);
      assert.match(res.json().message, /within 6 hours/);
    }
    assert.deepEqual(await custodyOf(id), before, 'nothing changed');
    // Just inside the window: applied (Fireblocks retries for about 4 h 16 min).
    const late = stamped(Date.now() - 5 * hour, queued);
    assert.equal((await post(late, signed(late))).json().status, 'applied');
    assert.equal((await custodyOf(id)).status, 'QUEUED');

    const next = event({ ...custodian, status: 'PENDING_SIGNATURE', lastUpdated: at + 2 });
    assert.equal((await post(next, signed(next))).json().status, 'applied');
    const row = () =>
      f.h.db.query('SELECT status, custody_status, updated_at, custody_checked_at FROM transactions WHERE id = $1', [
        id,
      ]);
    const applied = (await row()).rows[0];
    // The same events again (Fireblocks' retry, or a replay of a captured body): answered 200, changing nothing.
    for (const body of [late, next, late]) {
      const again = await post(body, signed(body));
      assert.equal(again.statusCode, 200);
      assert.equal(again.json().status, 'duplicate');
    }
    assert.deepEqual((await row()).rows[0], applied);
    assert.equal((await custodyOf(id)).status, 'PENDING_SIGNATURE');
  });

  it('bounds the body, and takes JSON only', async () => {
    const huge = JSON.stringify({ type: 'TRANSACTION_STATUS_UPDATED', data: { note: 'x'.repeat(70_000) } });
    assert.equal((await post(huge, signed(huge))).statusCode, 413);
    const text = await post('hello', { 'content-type': 'text/plain', 'fireblocks-signature': 'x' });
    assert.equal(text.statusCode, 415);
  });

  it('is not served without FIREBLOCKS_WEBHOOK_PUBLIC_KEY_PATH', async () => {
    const bare = await createHarness();
    try {
      const res = await bare.app.inject({
        method: 'POST',
        url: '/webhooks/fireblocks',
        payload: '{}',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.statusCode, 404);
    } finally {
      await bare.close();
    }
  });
});
