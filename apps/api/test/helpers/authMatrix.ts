// The authorization matrix's operations (auth.test.ts): the fixture of two projects they act on, what each is asked
// and what a successful answer must show. Its callers and their expected outcomes are in authMatrixCallers.ts.
import assert from 'node:assert/strict';
import { COUNTER_FORMATTED_ABI, incrementsSubscription } from '@mountain/testkit/testContract.ts';
import { rotateApiKey } from '#api/projects/projects.ts';
import { setMembership } from '#api/projects/users.ts';
import { apiKey, type Harness } from '#api-testing/harness.ts';
import {
  assertNotFoundFromB,
  assertNothingOfA,
  ids,
  type MatrixOperation,
  ok,
  randomAddress,
} from './authMatrixChecks.ts';
import { CONSOLE_MATRIX_OPERATIONS, exchangeKey } from './authMatrixConsole.ts';
import { EVENT_NOTIFIER_MATRIX_OPERATIONS } from './authMatrixEventNotifier.ts';

const abiEntry = (name: string) => COUNTER_FORMATTED_ABI.find((e) => e.startsWith(`function ${name}(`)) as string;
export const INCREMENT = abiEntry('increment');
export const SET_LOCKED = abiEntry('setLocked');

/**
 * Project A holds one of every object (contract, activated function, transaction, subscription); project B is
 * another project of the same deployment. Every credential the matrix uses is made here.
 */
export async function createMatrixFixture(h: Harness, counter: string) {
  const a = await h.project('Project A');
  const b = await h.project('Project B');
  const revokedKey = a.apiKey;
  const keyA = await rotateApiKey(h.db, a.project.id, 'test');
  const headersA = apiKey(keyA);
  const imported = await h.call('import-contract', {
    headers: headersA,
    body: { networkId: 1337, address: counter, formattedAbi: COUNTER_FORMATTED_ABI },
  });
  assert.equal(imported.status, 201, JSON.stringify(imported.body));
  const contractId: number = imported.body.contract.id;
  const activate = (formattedAbiFunction: string) =>
    h.call('activate-contract-function', { headers: headersA, body: { contractId, formattedAbiFunction } });
  const increment = await activate(INCREMENT);
  assert.equal(increment.status, 201, JSON.stringify(increment.body));
  const functionId: number = increment.body.contractActivatedFunction.id;
  const executed = await h.call('execute-transaction', {
    headers: headersA,
    body: { contractActivatedFunctionId: functionId, functionArgs: ['1'], idempotencyKey: 'fixture' },
  });
  assert.equal(executed.status, 201, JSON.stringify(executed.body));
  const subscribed = await h.call('create-subscription', {
    headers: headersA,
    body: incrementsSubscription(counter, { subscriptionName: 'Increments of A' }),
  });
  assert.equal(subscribed.status, 201, JSON.stringify(subscribed.body));

  const endpoint = () =>
    h.call('create-webhook-endpoint', {
      headers: headersA,
      body: { url: 'https://example.com/hooks/a', eventTypes: ['transaction.succeeded'], description: 'Endpoint of A' },
    });
  const endpointCreated = await endpoint();
  assert.equal(endpointCreated.status, 201, JSON.stringify(endpointCreated.body));
  // One endpoint for each caller of delete-webhook-endpoint: a caller allowed in A deletes one.
  const endpointsToDelete: string[] = [];
  for (let i = 0; i < 16; i++) endpointsToDelete.push((await endpoint()).body.webhookEndpoint.id);
  // Likewise one subscription for each caller of delete-subscription.
  const subscriptionsToDelete: string[] = [];
  for (let i = 0; i < 16; i++) {
    const made = await h.call('create-subscription', {
      headers: headersA,
      body: incrementsSubscription(counter, { subscriptionName: `To delete ${i}` }),
    });
    subscriptionsToDelete.push(made.body.eventNotifierSubscription.id);
  }

  const tokens: Record<'reader' | 'editor' | 'admin', string> = { reader: '', editor: '', admin: '' };
  for (const role of ['reader', 'editor', 'admin'] as const) tokens[role] = (await h.member(a.project.id, role)).token;
  const outsider = await h.user();
  const memberOfB = await h.user();
  await setMembership(h.db, { projectId: b.project.id, userId: memberOfB.id, role: 'admin' });
  const expiredUser = await h.member(a.project.id, 'admin');
  const linkOfA = () => h.consoleLinkCode(expiredUser.userId, { projectId: a.project.id });
  const walletOfA = await h.db.query<{ address: string }>(
    'SELECT w.address FROM projects p JOIN system_wallets w ON w.id = p.wallet_testnet_id WHERE p.id = $1',
    [a.project.id],
  );
  return {
    projectA: a.project.id,
    /** A's testnet wallet (dedicated: no other project signs with it). */
    walletA: walletOfA.rows[0]?.address as string,
    projectB: b.project.id,
    keyA,
    keyB: b.apiKey,
    revokedKey,
    tokens,
    nonMemberToken: h.token(outsider.id, { projectId: a.project.id }),
    tokenOfB: h.token(memberOfB.id),
    otherTokenOfB: h.token(memberOfB.id),
    /** A token exchanged for A's key (exchange-api-key); made again when the matrix rotates the key. */
    keyTokenA: await exchangeKey(h, keyA),
    expiredToken: h.token(expiredUser.userId, { expiresInSeconds: 60, now: Date.now() - 3_600_000 }),
    contractId,
    functionId,
    transactionId: executed.body.transaction.id as string,
    subscriptionId: subscribed.body.eventNotifierSubscription.id as string,
    endpointId: endpointCreated.body.webhookEndpoint.id as string,
    endpointsToDelete,
    subscriptionsToDelete,
    /** One-time console links of an admin of A, one per caller of exchange-console-link. */
    consoleLinkCodes: await Promise.all(Array.from({ length: 20 }, linkOfA)),
  };
}

export type MatrixFixture = Awaited<ReturnType<typeof createMatrixFixture>>;

/** In which project a caller that got through acts: A (the owner of the objects named), B, or none at all. */
export type ActingIn = 'A' | 'B' | 'no project';

let deletions = 0;

/** What each operation is asked, and what a successful answer must show, per operation id. */
export const MATRIX_OPERATIONS: Record<string, MatrixOperation> = {
  ...CONSOLE_MATRIX_OPERATIONS,
  ...EVENT_NOTIFIER_MATRIX_OPERATIONS,
  'get-projects': {
    request: () => ({}),
    check(res, f, actingIn) {
      ok(res, 200);
      const expected = { A: [f.projectA], B: [f.projectB], 'no project': [] }[actingIn];
      assert.deepEqual(ids(res.body.data.projects), expected);
    },
  },
  'get-project-detail': {
    request: () => ({}),
    check(res, f, actingIn) {
      ok(res, 200);
      assert.equal(res.body.data.project.id, actingIn === 'A' ? f.projectA : f.projectB);
    },
  },
  'add-system-wallets': {
    request: () => ({ body: { networkType: 'mainnet', count: 1 } }),
    check(res, f, actingIn) {
      ok(res, 201);
      const { project, mSystemWallets } = res.body.data;
      assert.equal(project.id, actingIn === 'A' ? f.projectA : f.projectB);
      // The acting project's pool grew; the other project's wallets are not among them.
      assert.ok(mSystemWallets.length >= 3);
      if (actingIn === 'B') assert.ok(mSystemWallets.every((w: { address: string }) => w.address !== f.walletA));
    },
  },
  'get-contracts': {
    request: () => ({}),
    check(res, f, actingIn) {
      ok(res, 200);
      const contracts = res.body.contracts as { id: number; projectId: number }[];
      if (actingIn === 'A') assert.ok(ids(contracts).includes(f.contractId));
      else assert.ok(contracts.every((c) => c.projectId === f.projectB && c.id !== f.contractId));
    },
  },
  'import-contract': {
    request: () => ({ body: { networkId: 1337, address: randomAddress(), formattedAbi: COUNTER_FORMATTED_ABI } }),
    check(res, f, actingIn) {
      ok(res, 201);
      assert.equal(res.body.contract.projectId, actingIn === 'A' ? f.projectA : f.projectB);
    },
  },
  'activate-contract-function': {
    request: (f) => ({ body: { contractId: f.contractId, formattedAbiFunction: SET_LOCKED } }),
    check(res, f, actingIn) {
      if (actingIn !== 'A') return assertNotFoundFromB(res, f, f.contractId);
      ok(res, 201);
      assert.equal(res.body.contractActivatedFunction.contractId, f.contractId);
    },
  },
  'deactivate-contract-function': {
    request: (f) => ({ body: { contractId: f.contractId, formattedAbiFunction: SET_LOCKED } }),
    check(res, f, actingIn) {
      if (actingIn !== 'A') return assertNotFoundFromB(res, f, f.contractId);
      ok(res, 201);
      // The first deactivation changes the row; later ones report that there was nothing to change.
      assert.match(
        res.body.message,
        new RegExp(
          `^Function setLocked\\(bool\\) of contract ${f.contractId} (is deactivated|was not active; nothing changed)$`,
        ),
      );
    },
  },
  'get-contract-activated-functions': {
    request: (f) => ({ body: { contractId: f.contractId } }),
    check(res, f, actingIn) {
      if (actingIn !== 'A') return assertNotFoundFromB(res, f, f.contractId);
      ok(res, 200);
      assert.ok(ids(res.body.contractActivatedFunctions).includes(f.functionId));
    },
  },
  'call-contract-function': {
    request: (f) => ({ body: { contractId: f.contractId, formattedAbiFunction: 'count()', functionArgs: [] } }),
    check(res, f, actingIn) {
      if (actingIn !== 'A') return assertNotFoundFromB(res, f, f.contractId);
      ok(res, 200);
      assert.match(res.body.result[0], /^\d+$/);
    },
  },
  'execute-transaction': {
    request: (f, n) => ({
      body: { contractActivatedFunctionId: f.functionId, functionArgs: ['1'], idempotencyKey: `matrix-${n}` },
    }),
    check(res, f, actingIn) {
      if (actingIn !== 'A') return assertNotFoundFromB(res, f, f.functionId);
      ok(res, 201);
      assert.equal(res.body.transaction.projectId, f.projectA);
      assert.equal(res.body.transaction.contractActivatedFunctionId, f.functionId);
    },
  },
  'get-transaction': {
    request: (f) => ({ query: { transactionId: f.transactionId } }),
    check(res, f, actingIn) {
      if (actingIn !== 'A') return assertNotFoundFromB(res, f, f.transactionId);
      ok(res, 200);
      assert.equal(res.body.transaction.id, f.transactionId);
    },
  },
  'speed-up-transaction': {
    request: (f) => ({ body: { transactionId: f.transactionId } }),
    check(res, f, actingIn) {
      if (actingIn !== 'A') return assertNotFoundFromB(res, f, f.transactionId);
      // The fixture's transaction is not waiting in the network (not sent yet, or mined): refused, as it must be.
      assert.equal(res.status, 409, JSON.stringify(res.body));
      assert.match(res.body.code, /^TRANSACTION_(NOT_PENDING|ALREADY_MINED)$/);
    },
  },
  'cancel-transaction': {
    request: (f) => ({ body: { transactionId: f.transactionId } }),
    check(res, f, actingIn) {
      if (actingIn !== 'A') return assertNotFoundFromB(res, f, f.transactionId);
      // The fixture's transaction is cancelled by the first writer to ask (it is never sent), and answered as it is
      // to the next ones; mined or ended, it is refused (the cancel itself is transactionCancel.test.ts's).
      if (res.status === 200) return assert.equal(res.body.transaction.status, 'cancelled', JSON.stringify(res.body));
      assert.equal(res.status, 409, JSON.stringify(res.body));
      assert.match(res.body.code, /^TRANSACTION_(NOT_PENDING|ALREADY_MINED)$/);
    },
  },
  'create-webhook-endpoint': {
    request: (_f, n) => ({ body: { url: `https://example.com/hooks/${n}`, eventTypes: ['transaction.failed'] } }),
    check(res, f, actingIn) {
      ok(res, 201);
      assert.equal(res.body.webhookEndpoint.projectId, actingIn === 'A' ? f.projectA : f.projectB);
      assert.match(res.body.webhookEndpoint.secret, /^whsec_[A-Za-z0-9+/=]{20,}$/);
    },
  },
  'get-webhook-endpoints': {
    request: () => ({}),
    check(res, f, actingIn) {
      ok(res, 200);
      const listed = res.body.webhookEndpoints as { id: string; secret: string }[];
      if (actingIn === 'A') assert.ok(ids(listed).includes(f.endpointId));
      else assertNothingOfA(res.body, f);
      for (const endpoint of listed) assert.match(endpoint.secret, /\*{16}$/);
    },
  },
  'update-webhook-endpoint': {
    request: (f, n) => ({ body: { id: f.endpointId, description: `Endpoint of A, ${n}` } }),
    check(res, f, actingIn) {
      if (actingIn !== 'A') return assertNotFoundFromB(res, f, f.endpointId);
      ok(res, 200);
      assert.equal(res.body.webhookEndpoint.id, f.endpointId);
    },
  },
  'delete-webhook-endpoint': {
    request: (f) => ({ body: { id: f.endpointsToDelete[deletions++ % f.endpointsToDelete.length] } }),
    check(res, _f, actingIn) {
      if (actingIn !== 'A') return assert.equal(res.status, 404, JSON.stringify(res.body));
      ok(res, 200);
      assert.match(res.body.message, /^Webhook endpoint [0-9a-f-]{36} is deleted$/);
    },
  },
  'rotate-webhook-endpoint-secret': {
    request: (f) => ({ body: { id: f.endpointId, gracePeriodSeconds: 60 } }),
    check(res, f, actingIn) {
      if (actingIn !== 'A') return assertNotFoundFromB(res, f, f.endpointId);
      ok(res, 200);
      assert.equal(res.body.webhookEndpoint.id, f.endpointId);
      assert.ok(res.body.webhookEndpoint.previousSecretExpiresAt);
    },
  },
  'get-webhook-messages': {
    request: (f) => ({ query: { endpointId: f.endpointId } }),
    check(res, f, actingIn) {
      if (actingIn !== 'A') return assertNotFoundFromB(res, f, f.endpointId);
      ok(res, 200);
      assert.ok(Array.isArray(res.body.webhookMessages));
    },
  },
  'get-webhook-attempts': {
    request: () => ({}),
    check(res, f, actingIn) {
      ok(res, 200);
      if (actingIn !== 'A') assertNothingOfA(res.body, f);
      assert.ok(Array.isArray(res.body.webhookAttempts));
    },
  },
  'replay-webhook-messages': {
    request: (f) => ({ body: { endpointId: f.endpointId, since: '2026-01-01T00:00:00.000Z' } }),
    check(res, f, actingIn) {
      if (actingIn !== 'A') return assertNotFoundFromB(res, f, f.endpointId);
      ok(res, 200);
      assert.equal(typeof res.body.queuedCount, 'number');
    },
  },
  'get-transactions': {
    request: () => ({}),
    check(res, f, actingIn) {
      ok(res, 200);
      const listed = res.body.data.transactions as { id: string; projectId: number }[];
      if (actingIn === 'A') assert.ok(ids(listed).includes(f.transactionId));
      else assertNothingOfA(res.body, f);
    },
  },
};
