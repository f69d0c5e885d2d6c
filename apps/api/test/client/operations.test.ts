// Every operation's method against the real API server (buildApp on a fresh database, listening on loopback): each
// answers as documented, on the first attempt.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { MountainClient, NotFoundError, ValidationError } from '@mountain/public-api-client';
import { createHarness, type Harness } from '#api-testing/harness.ts';
import { transferSubscription } from '../helpers/eventNotifier.ts';

const ADDRESS = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const MINT = 'function mint(address to, uint256 amount)';
const MISSING_ID = 2_000_000_000;

describe('every operation against the live server', () => {
  let h: Harness;
  let client: MountainClient;
  let baseUrl: string;
  let projectId: number;
  let attempts = 0;

  before(async () => {
    h = await createHarness();
    await h.app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}/public-api/v3`;
    const { project, apiKey } = await h.project('Client tests');
    projectId = project.id;
    // Counts attempts, so the tests can tell that an answer took one request; the requests go to the real server.
    client = new MountainClient({
      apiKey,
      baseUrl,
      fetch: (input, init) => {
        attempts++;
        return fetch(input, init);
      },
    });
  });
  after(() => h.close());

  /** Runs the call and checks that its answer took one request. */
  async function once<T>(call: () => Promise<T>): Promise<T> {
    attempts = 0;
    const answer = await call();
    assert.equal(attempts, 1);
    return answer;
  }

  /** For ids that exist in no project: a NotFoundError, not retried. */
  async function notFound(call: () => Promise<unknown>): Promise<void> {
    attempts = 0;
    await assert.rejects(call(), (error) => {
      assert.ok(error instanceof NotFoundError, `expected NotFoundError, got ${error}`);
      assert.equal(error.code, 'NOT_FOUND');
      return true;
    });
    assert.equal(attempts, 1, '404 is not retried');
  }

  it('getProjects lists the access token user’s projects with pagination meta', async () => {
    const { token } = await h.member(projectId, 'reader');
    const asUser = new MountainClient({ accessToken: token, baseUrl });
    const { data, meta } = await asUser.getProjects({ page: 1, perPage: 10 });
    assert.deepEqual(
      data.projects.map((p) => [p.id, p.projectName]),
      [[projectId, 'Client tests']],
    );
    assert.match(data.projects[0]?.apiKey ?? '', /^mtn_test_\w+\*+$/);
    assert.deepEqual(meta, { pageNumber: 1, perPage: 10, totalPage: 1, totalItems: 1 });
    assert.equal((await asUser.getProjects()).meta.perPage, 20, 'page and perPage default on the server');
  });

  it('getProjectDetail answers the project and its two system wallets', async () => {
    const { data } = await client.getProjectDetail();
    assert.equal(data.project.id, projectId);
    assert.equal(data.mSystemWalletMainnet.networkType, 'mainnet');
    assert.equal(data.mSystemWalletTestnet.networkType, 'testnet');
    assert.match(data.mSystemWalletTestnet.address, /^0x[0-9a-fA-F]{40}$/);
  });

  it('importContract imports a contract, and a second import is a ConflictError', async () => {
    const body = { networkId: 1337 as const, address: ADDRESS, formattedAbi: [MINT] };
    const answer = await once(() => client.importContract(body));
    assert.equal(answer.contract.address, ADDRESS);
    assert.equal(answer.contract.networkId, 1337);
    await assert.rejects(client.importContract(body), { name: 'ConflictError', status: 409, code: 'CONFLICT' });
  });

  it('getContracts lists contracts', async () => {
    const answer = await once(() => client.getContracts());
    assert.ok(Array.isArray(answer.contracts));
  });

  it('activate/deactivate/getContractActivatedFunctions reach the server (unknown contract: 404)', async () => {
    await notFound(() => client.activateContractFunction({ contractId: MISSING_ID, formattedAbiFunction: MINT }));
    await notFound(() => client.deactivateContractFunction({ contractId: MISSING_ID, formattedAbiFunction: MINT }));
    await notFound(() => client.getContractActivatedFunctions({ contractId: MISSING_ID }));
  });

  it('callContractFunction reaches the server: a function that changes state is refused, an unknown contract 404', async () => {
    const contractId = (await client.getContracts()).contracts.find((c) => c.address === ADDRESS)?.id as number;
    attempts = 0;
    await assert.rejects(client.callContractFunction({ contractId, formattedAbiFunction: MINT, functionArgs: [] }), {
      status: 400,
      code: 'FUNCTION_NOT_READABLE',
    });
    assert.equal(attempts, 1, '400 is not retried');
    await notFound(() =>
      client.callContractFunction({ contractId: MISSING_ID, formattedAbiFunction: MINT, functionArgs: [] }),
    );
  });

  it('createSubscription and getSubscriptions', async () => {
    const created = await once(() => client.createSubscription(transferSubscription(ADDRESS)));
    assert.equal(created.eventNotifierSubscription.subscriptionName, 'Transfers');
    assert.match(created.eventNotifierSubscription.webhookSecret ?? '', /^whsec_/);
    const listed = await once(() => client.getSubscriptions());
    assert.ok(listed.eventNotifierSubscriptions.some((s) => s.id === created.eventNotifierSubscription.id));
  });

  it('updateSubscriptionWebhook, getRecords, resendFailedWebhook reach the server (unknown id: 404)', async () => {
    await notFound(() => client.updateSubscriptionWebhook({ id: randomUUID(), webhookEnabled: false }));
    await notFound(() => client.getRecords({ subscriptionId: randomUUID() }));
    await notFound(() => client.resendFailedWebhook({ subscriptionId: randomUUID() }));
  });

  it('executeTransaction and getTransaction reach the server (unknown ids: 404)', async () => {
    await notFound(() => client.executeTransaction({ contractActivatedFunctionId: MISSING_ID, functionArgs: [] }));
    await notFound(() => client.getTransaction({ transactionId: randomUUID() }));
  });

  it('getTransactions and iterateTransactions on a project without transactions', async () => {
    const page = await once(() => client.getTransactions({ status: 'failed', perPage: 5 }));
    assert.deepEqual(page.data.transactions, []);
    assert.equal(page.meta.totalItems, 0);
    const all = await once(async () => {
      const seen = [];
      for await (const transaction of client.iterateTransactions({ status: 'succeeded' })) seen.push(transaction);
      return seen;
    });
    assert.deepEqual(all, []);
  });

  it('a body the server refuses comes back as a ValidationError naming the field, before any work', async () => {
    const bad = { networkId: 1337 as const, address: '0x1234', formattedAbi: [MINT] };
    await assert.rejects(client.importContract(bad), (error) => {
      assert.ok(error instanceof ValidationError);
      assert.equal(error.status, 400);
      assert.equal(error.code, 'VALIDATION_FAILED');
      assert.ok(
        error.details.some((d) => d.field === 'body.address'),
        JSON.stringify(error.details),
      );
      return true;
    });
    const unknownNetwork = { ...bad, address: ADDRESS, networkId: 5 } as never;
    await assert.rejects(client.importContract(unknownNetwork), (error) => {
      assert.ok(error instanceof ValidationError);
      assert.deepEqual(
        error.details.map((d) => d.field),
        ['body.networkId'],
      );
      return true;
    });
    await assert.rejects(client.getTransactions({ perPage: 1000 }), (error) => {
      assert.ok(error instanceof ValidationError);
      assert.ok(
        error.details.some((d) => d.field === 'querystring.perPage'),
        JSON.stringify(error.details),
      );
      return true;
    });
  });
});
