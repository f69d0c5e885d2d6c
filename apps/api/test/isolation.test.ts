import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AnvilHandle, startAnvil } from '@mountain/testkit/anvil.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { deployCounter, incrementsSubscription } from '@mountain/testkit/testContract.ts';
import { eventually, type Receiver, startReceiver } from '@mountain/testkit/webhookReceiver.ts';
import { setMembership } from '#api/projects/users.ts';
import { apiKey, bearer, type CallResult, createHarness, type Harness } from '#api-testing/harness.ts';
import { counterProject, settled } from '#api-testing/transactionFlow.ts';
import { INCREMENT, SET_LOCKED } from './helpers/authMatrix.ts';
import { FAST_SETTINGS, startTestWorker } from './helpers/eventNotifier.ts';

describe('project isolation', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness();
  });
  after(() => h.close());

  it("a project's key reads only its own project", async () => {
    const a = await h.project('Alpha');
    const b = await h.project('Beta');
    const resA = await h.call('get-project-detail', { headers: apiKey(a.apiKey) });
    const resB = await h.call('get-project-detail', { headers: apiKey(b.apiKey) });
    assert.equal(resA.body.data.project.projectName, 'Alpha');
    assert.equal(resB.body.data.project.projectName, 'Beta');
    assert.notEqual(resA.body.data.mSystemWalletMainnet.address, resB.body.data.mSystemWalletMainnet.address);
    // X-Project-Id has no effect with an API key.
    const res = await h.call('get-project-detail', {
      headers: { ...apiKey(a.apiKey), 'x-project-id': String(b.project.id) },
    });
    assert.equal(res.body.data.project.projectName, 'Alpha');
  });

  it("a member of one project cannot reach another project's data", async () => {
    const a = await h.project('Alpha');
    const b = await h.project('Beta');
    const { token } = await h.member(a.project.id, 'admin');
    const res = await h.call('get-project-detail', {
      headers: { ...bearer(token), 'x-project-id': String(b.project.id) },
    });
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 'NOT_A_MEMBER');
    assert.doesNotMatch(JSON.stringify(res.body), /Beta/);
  });
});

/**
 * Object-level isolation on real objects: project A has a contract on anvil, an active and an inactive function,
 * a mined transaction, and a subscription whose webhook failed on a real receiver. Callers acting in project B
 * try every read and write that takes one of those ids; each gets 404 with nothing of A, and A's rows are the
 * same afterwards.
 */
describe('object-level isolation: project B cannot read or change project A’s objects', () => {
  let anvil: AnvilHandle;
  let h: Harness;
  let receiver: Receiver;
  let a: Awaited<ReturnType<typeof counterProject>>;
  let transaction: { id: string; transactionHash: string };
  let subscription: { id: string; webhookURL: string; webhookSecret: string };
  let failedRecordId: string;
  let callersInB: [string, Record<string, string>][];
  let checks = 0;

  before(async () => {
    anvil = await startAnvil({ port: await freePort() });
    h = await createHarness({ rpcUrls: { 1337: anvil.url } });
    h.deps.eventNotifier = FAST_SETTINGS;
    h.deps.delivery = FAST_SETTINGS;
    const worker = await startTestWorker(h);
    try {
      const counter = await deployCounter(anvil.url);
      a = await counterProject(h, counter, ['increment', 'setLocked']);
      const off = await h.call('deactivate-contract-function', {
        headers: a.headers,
        body: { contractId: a.contractId, formattedAbiFunction: SET_LOCKED },
      });
      assert.equal(off.status, 201);
      const executed = await h.call('execute-transaction', {
        headers: a.headers,
        body: { contractActivatedFunctionId: a.ids.increment, functionArgs: ['3'], idempotencyKey: 'shared-key' },
      });
      assert.equal(executed.status, 201, JSON.stringify(executed.body));
      transaction = await settled(h, a.headers, executed.body.transaction.id);
      assert.equal(transaction.transactionHash.length, 66);

      receiver = await startReceiver(() => ({ status: 500 }));
      const created = await h.call('create-subscription', {
        headers: a.headers,
        body: incrementsSubscription(counter, {
          subscriptionName: 'Increments of A',
          webhookURL: receiver.url,
          webhookMaxRetries: 0,
        }),
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      subscription = created.body.eventNotifierSubscription;
      const failed = await eventually(async () => {
        const res = await h.call('get-records', { headers: a.headers, body: { subscriptionId: subscription.id } });
        return res.body.eventNotifierRecords.find((r: { status: string }) => r.status === 'failed');
      });
      failedRecordId = failed.id;
    } finally {
      // Nothing runs in the background from here on, so any change to A's rows can only come from the calls.
      await worker.stop();
    }

    const b = await h.project('Project B');
    const adminOfB = await h.member(b.project.id, 'admin');
    const adminOfBoth = await h.member(a.projectId, 'admin');
    await setMembership(h.db, { projectId: b.project.id, userId: adminOfBoth.userId, role: 'admin' });
    callersInB = [
      ["B's API key", apiKey(b.apiKey)],
      ["B's API key with X-Project-Id of A (ignored)", { ...apiKey(b.apiKey), 'x-project-id': String(a.projectId) }],
      ["B's admin token", bearer(adminOfB.token)],
      [
        'token of an admin of A and B, X-Project-Id of B',
        { ...bearer(adminOfBoth.token), 'x-project-id': `${b.project.id}` },
      ],
    ];
  });
  after(async () => {
    await receiver?.close();
    await h?.close();
    await anvil?.stop();
  });

  /** Every row of project A, and everything that hangs off it, as stored. */
  async function rowsOfA() {
    const q = async (sql: string) => (await h.db.query(sql, [a.projectId])).rows;
    return {
      projects: await q('SELECT * FROM projects WHERE id = $1'),
      apiKeys: await q('SELECT * FROM api_keys WHERE project_id = $1 ORDER BY id'),
      contracts: await q('SELECT * FROM contracts WHERE project_id = $1 ORDER BY id'),
      functions: await q(
        `SELECT f.* FROM contract_activated_functions f JOIN contracts c ON c.id = f.contract_id
          WHERE c.project_id = $1 ORDER BY f.id`,
      ),
      transactions: await q('SELECT * FROM transactions WHERE project_id = $1 ORDER BY id'),
      subscriptions: await q('SELECT * FROM event_notifier_subscriptions WHERE project_id = $1 ORDER BY id'),
      records: await q(
        `SELECT r.* FROM event_notifier_records r JOIN event_notifier_subscriptions s ON s.id = r.subscription_id
          WHERE s.project_id = $1 ORDER BY r.id`,
      ),
    };
  }

  /** Strings that only project A's data contains. */
  const secretsOfA = () => [
    transaction.id,
    transaction.transactionHash,
    subscription.id,
    subscription.webhookURL,
    subscription.webhookSecret.slice(6),
    failedRecordId,
    a.wallet,
    a.wallet.toLowerCase(),
    'Increments of A',
    'Counter ',
  ];

  /** The answer is 404 NOT_FOUND for the id sent, and shows nothing else of A. */
  function assertHidden(res: CallResult, sentId: string | number, what: string) {
    assert.equal(res.status, 404, `${what}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.code, 'NOT_FOUND');
    assert.match(res.body.message, new RegExp(`^\\w[\\w ]* ${sentId} was not found$`));
    assertNothingOfA(res.body, what, String(sentId));
  }
  function assertNothingOfA(body: unknown, what: string, sentId?: string) {
    let text = JSON.stringify(body);
    if (sentId) text = text.replaceAll(sentId, '<sent>');
    for (const secret of secretsOfA()) assert.ok(!text.includes(secret), `${what}: answer shows ${secret}: ${text}`);
  }

  /** Each read and write that takes one of A's ids, and what it must answer from project B. */
  const attempts: [
    string,
    () => [string, { body?: unknown; query?: Record<string, string> }],
    (res: CallResult) => void,
  ][] = [
    [
      'get-transaction with A’s transaction id',
      () => ['get-transaction', { query: { transactionId: transaction.id } }],
      (res) => assertHidden(res, transaction.id, 'get-transaction'),
    ],
    ...['', 'succeeded', 'created', 'reverted'].map((status): (typeof attempts)[number] => [
      `get-transactions${status ? ` filtered by status=${status}` : ''} lists none of A’s`,
      () => ['get-transactions', { query: { page: '1', perPage: '100', ...(status ? { status } : {}) } }],
      (res) => {
        assert.equal(res.status, 200);
        assert.deepEqual(res.body.data.transactions, []);
        assert.equal(res.body.meta.totalItems, 0);
      },
    ]),
    [
      'execute-transaction with A’s activated function id (and A’s idempotency key)',
      () => [
        'execute-transaction',
        { body: { contractActivatedFunctionId: a.ids.increment, functionArgs: ['3'], idempotencyKey: 'shared-key' } },
      ],
      (res) => assertHidden(res, a.ids.increment as number, 'execute-transaction'),
    ],
    [
      'activate-contract-function on A’s contract (A’s inactive function)',
      () => ['activate-contract-function', { body: { contractId: a.contractId, formattedAbiFunction: SET_LOCKED } }],
      (res) => assertHidden(res, a.contractId, 'activate-contract-function'),
    ],
    [
      'deactivate-contract-function on A’s contract (A’s active function)',
      () => ['deactivate-contract-function', { body: { contractId: a.contractId, formattedAbiFunction: INCREMENT } }],
      (res) => assertHidden(res, a.contractId, 'deactivate-contract-function'),
    ],
    [
      'get-contract-activated-functions of A’s contract',
      () => ['get-contract-activated-functions', { body: { contractId: a.contractId } }],
      (res) => assertHidden(res, a.contractId, 'get-contract-activated-functions'),
    ],
    [
      'get-contracts lists none of A’s',
      () => ['get-contracts', {}],
      (res) => {
        assert.equal(res.status, 200);
        assert.ok(!res.body.contracts.some((c: { id: number }) => c.id === a.contractId));
        assertNothingOfA(res.body, 'get-contracts');
      },
    ],
    [
      'get-records of A’s subscription',
      () => ['get-records', { body: { subscriptionId: subscription.id } }],
      (res) => assertHidden(res, subscription.id, 'get-records'),
    ],
    [
      'update-subscription-webhook of A’s subscription (disable, new URL, retries)',
      () => [
        'update-subscription-webhook',
        {
          body: {
            id: subscription.id,
            webhookEnabled: false,
            webhookURL: 'https://attacker.example/hook',
            webhookMaxRetries: 9,
          },
        },
      ],
      (res) => assertHidden(res, subscription.id, 'update-subscription-webhook'),
    ],
    [
      'update-subscription-webhook of A’s subscription (enable only)',
      () => ['update-subscription-webhook', { body: { id: subscription.id, webhookEnabled: true } }],
      (res) => assertHidden(res, subscription.id, 'update-subscription-webhook'),
    ],
    ...[false, true].map((force): (typeof attempts)[number] => [
      `resend-failed-webhook of A’s subscription, force: ${force}`,
      () => ['resend-failed-webhook', { body: { subscriptionId: subscription.id, force } }],
      (res) => assertHidden(res, subscription.id, 'resend-failed-webhook'),
    ]),
    [
      'get-subscriptions lists none of A’s',
      () => ['get-subscriptions', {}],
      (res) => {
        assert.equal(res.status, 200);
        assertNothingOfA(res.body, 'get-subscriptions');
      },
    ],
    [
      'get-project-detail shows B, not A',
      () => ['get-project-detail', {}],
      (res) => {
        assert.equal(res.status, 200);
        assert.notEqual(res.body.data.project.id, a.projectId);
        assertNothingOfA(res.body, 'get-project-detail');
      },
    ],
  ];

  it('every caller acting in B gets 404 (or only B’s data) for every id of A, and A’s rows do not change', async (t) => {
    const before = await rowsOfA();
    const deliveriesBefore = receiver.deliveries.length;
    for (const [caller, headers] of callersInB) {
      for (const [name, request, check] of attempts) {
        const [operationId, options] = request();
        const res = await h.call(operationId, { ...options, headers });
        await t.test(`${caller}: ${name}`, () => check(res));
        checks++;
      }
    }
    assert.deepEqual(await rowsOfA(), before, 'A’s rows are unchanged');
    const failed = before.records.find((r) => r.id === failedRecordId);
    assert.equal(failed?.status, 'failed', 'the failed record is still failed, not queued again');
    assert.equal(failed?.next_attempt_at, null);
    assert.equal(before.functions.find((f) => f.id === a.ids.setLocked)?.active, false);
    assert.equal(before.functions.find((f) => f.id === a.ids.increment)?.active, true);
    const jobs = await h.db.query(`SELECT count(*)::int AS n FROM graphile_worker.jobs WHERE key = $1`, [
      `event-notifier:deliver:${subscription.id}`,
    ]);
    assert.equal(jobs.rows[0]?.n, 0, 'no delivery of A’s records was queued');
    const foreign = await h.db.query(
      'SELECT count(*)::int AS n FROM transactions WHERE project_id <> $1 OR contract_activated_function_id = $2 AND id <> $3',
      [a.projectId, a.ids.increment, transaction.id],
    );
    assert.equal(foreign.rows[0]?.n, 0, 'no transaction was created from A’s function');
    assert.equal(receiver.deliveries.length, deliveriesBefore, 'A’s receiver got nothing more');
    assert.equal(checks, callersInB.length * attempts.length);
    t.diagnostic(`object-level checks: ${checks} (${callersInB.length} callers × ${attempts.length} attempts)`);
  });

  it('A’s owner still reaches every object afterwards (the ids were right)', async () => {
    const tx = await h.call('get-transaction', { headers: a.headers, query: { transactionId: transaction.id } });
    assert.equal(tx.body.transaction.status, 'succeeded');
    const fns = await h.call('get-contract-activated-functions', {
      headers: a.headers,
      body: { contractId: a.contractId },
    });
    assert.deepEqual(
      fns.body.contractActivatedFunctions.map((f: { id: number }) => f.id),
      [a.ids.increment],
    );
    const records = await h.call('get-records', { headers: a.headers, body: { subscriptionId: subscription.id } });
    assert.ok(records.body.eventNotifierRecords.some((r: { id: string }) => r.id === failedRecordId));
  });

  it('the same address and idempotency key in B make B’s own objects, unrelated to A’s', async () => {
    const [, headers] = callersInB[0] as [string, Record<string, string>];
    const contract = (await h.call('get-contracts', { headers: a.headers })).body.contracts[0];
    const imported = await h.call('import-contract', {
      headers,
      body: { networkId: 1337, address: contract.address, formattedAbi: contract.formattedAbi },
    });
    assert.equal(imported.status, 201, 'no 409: A’s import of the address is not visible to B');
    assert.notEqual(imported.body.contract.id, a.contractId);
    assert.notEqual(imported.body.contract.projectId, a.projectId);
    const activated = await h.call('activate-contract-function', {
      headers,
      body: { contractId: imported.body.contract.id, formattedAbiFunction: INCREMENT },
    });
    assert.equal(activated.status, 201);
    assert.notEqual(activated.body.contractActivatedFunction.id, a.ids.increment);
    const executed = await h.call('execute-transaction', {
      headers,
      body: {
        contractActivatedFunctionId: activated.body.contractActivatedFunction.id,
        functionArgs: ['3'],
        idempotencyKey: 'shared-key',
      },
    });
    assert.equal(executed.status, 201, 'A’s idempotency key is not a conflict in B');
    assert.notEqual(executed.body.transaction.id, transaction.id);
    assert.equal(executed.body.transaction.status, 'created');
    const mine = await h.call('get-transaction', { headers: a.headers, query: { transactionId: transaction.id } });
    assert.equal(mine.body.transaction.status, 'succeeded', 'A’s transaction with that key is untouched');
  });

  it('an id of A gets the very answer of an id that never existed (no way to tell them apart)', async () => {
    const [, headers] = callersInB[0] as [string, Record<string, string>];
    const never = '00000000-0000-4000-8000-00000000dead';
    const pairs: [
      string,
      (id: string | number) => { body?: unknown; query?: Record<string, string> },
      string | number,
      string | number,
    ][] = [
      ['get-transaction', (id) => ({ query: { transactionId: String(id) } }), transaction.id, never],
      ['get-records', (id) => ({ body: { subscriptionId: id } }), subscription.id, never],
      ['update-subscription-webhook', (id) => ({ body: { id, webhookEnabled: false } }), subscription.id, never],
      ['resend-failed-webhook', (id) => ({ body: { subscriptionId: id, force: true } }), subscription.id, never],
      ['get-contract-activated-functions', (id) => ({ body: { contractId: id } }), a.contractId, 999_999],
      [
        'activate-contract-function',
        (id) => ({ body: { contractId: id, formattedAbiFunction: SET_LOCKED } }),
        a.contractId,
        999_999,
      ],
      [
        'execute-transaction',
        (id) => ({ body: { contractActivatedFunctionId: id, functionArgs: ['1'], idempotencyKey: `probe-${id}` } }),
        a.ids.increment as number,
        999_999,
      ],
    ];
    for (const [operationId, request, idOfA, neverId] of pairs) {
      const ofA = await h.call(operationId, { ...request(idOfA), headers });
      const ofNone = await h.call(operationId, { ...request(neverId), headers });
      assert.equal(ofA.status, 404, operationId);
      const normalise = (body: object, id: string | number) => JSON.stringify(body).replaceAll(String(id), '<id>');
      assert.equal(normalise(ofA.body, idOfA), normalise(ofNone.body, neverId), operationId);
      assert.deepEqual(Object.keys(ofA.headers).sort(), Object.keys(ofNone.headers).sort(), operationId);
    }
  });
});
