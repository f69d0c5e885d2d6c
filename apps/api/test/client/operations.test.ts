// Every operation's method against the real API server (buildApp on a fresh database, listening on loopback).
// Operations whose work is not served yet answer 501 NOT_IMPLEMENTED after authenticating and validating; each
// test accepts that 501 or the documented answer, so it keeps holding once the operation is served.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { MountainClient, NotFoundError, ServerError, ValidationError } from '@mountain/public-api-client';
import { createHarness, type Harness } from '#api-testing/harness.ts';

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
    // Counts attempts, so the tests can tell that a 501 is not retried; the requests go to the real server.
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

  /**
   * Runs the call once; resolves with its answer when the operation is served, or with undefined after checking
   * that the 501 came back as a ServerError NOT_IMPLEMENTED on the first and only attempt.
   */
  async function servedOr501<T>(call: () => Promise<T>): Promise<T | undefined> {
    attempts = 0;
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof ServerError && error.status === 501)) throw error;
      assert.equal(error.code, 'NOT_IMPLEMENTED');
      assert.equal(error.name, 'ServerError');
      assert.equal(attempts, 1, '501 is not retried');
      return undefined;
    }
  }

  /** For ids that exist in no project: 404 NotFoundError once served, 501 today. */
  async function notFoundOr501(call: () => Promise<unknown>): Promise<void> {
    try {
      const answer = await servedOr501(call);
      assert.equal(answer, undefined, 'an unknown id is not answered with data');
    } catch (error) {
      assert.ok(error instanceof NotFoundError, `expected NotFoundError, got ${error}`);
      assert.equal(error.code, 'NOT_FOUND');
      assert.equal(attempts, 1, '404 is not retried');
    }
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

  it('importContract imports a contract, and a second import is a ConflictError (once served)', async () => {
    const body = { networkId: 1337 as const, address: ADDRESS, formattedAbi: [MINT] };
    const answer = await servedOr501(() => client.importContract(body));
    if (answer === undefined) return;
    assert.equal(answer.contract.address, ADDRESS);
    assert.equal(answer.contract.networkId, 1337);
    await assert.rejects(client.importContract(body), { name: 'ConflictError', status: 409, code: 'CONFLICT' });
  });

  it('getContracts lists contracts (once served)', async () => {
    const answer = await servedOr501(() => client.getContracts());
    if (answer) assert.ok(Array.isArray(answer.contracts));
  });

  it('activate/deactivate/getContractActivatedFunctions reach the server (unknown contract: 404 once served)', async () => {
    await notFoundOr501(() => client.activateContractFunction({ contractId: MISSING_ID, formattedAbiFunction: MINT }));
    await notFoundOr501(() =>
      client.deactivateContractFunction({ contractId: MISSING_ID, formattedAbiFunction: MINT }),
    );
    await notFoundOr501(() => client.getContractActivatedFunctions({ contractId: MISSING_ID }));
  });

  it('createSubscription and getSubscriptions (once served)', async () => {
    const created = await servedOr501(() =>
      client.createSubscription({
        subscriptionName: 'Transfers',
        networkId: 1337,
        address: ADDRESS,
        formattedAbiEvent: 'event Transfer(address indexed from, address indexed to, uint256 value)',
        initialBlockNumber: 0,
        scanInterval: 5,
      }),
    );
    if (created) {
      assert.equal(created.eventNotifierSubscription.subscriptionName, 'Transfers');
      assert.match(created.eventNotifierSubscription.webhookSecret ?? '', /^whsec_/);
    }
    const listed = await servedOr501(() => client.getSubscriptions());
    if (listed && created) {
      assert.ok(listed.eventNotifierSubscriptions.some((s) => s.id === created.eventNotifierSubscription.id));
    }
  });

  it('updateSubscriptionWebhook, getRecords, resendFailedWebhook reach the server (unknown id: 404 once served)', async () => {
    await notFoundOr501(() => client.updateSubscriptionWebhook({ id: randomUUID(), webhookEnabled: false }));
    await notFoundOr501(() => client.getRecords({ subscriptionId: randomUUID() }));
    await notFoundOr501(() => client.resendFailedWebhook({ subscriptionId: randomUUID() }));
  });

  it('executeTransaction and getTransaction reach the server (unknown ids: 404 once served)', async () => {
    await notFoundOr501(() => client.executeTransaction({ contractActivatedFunctionId: MISSING_ID, functionArgs: [] }));
    await notFoundOr501(() => client.getTransaction({ transactionId: randomUUID() }));
  });

  it('getTransactions and iterateTransactions on a project without transactions (once served)', async () => {
    const page = await servedOr501(() => client.getTransactions({ status: 'failed', perPage: 5 }));
    if (page) {
      assert.deepEqual(page.data.transactions, []);
      assert.equal(page.meta.totalItems, 0);
    }
    const all = await servedOr501(async () => {
      const seen = [];
      for await (const transaction of client.iterateTransactions({ status: 'succeeded' })) seen.push(transaction);
      return seen;
    });
    if (all) assert.deepEqual(all, []);
  });

  it('a body the server refuses comes back as a ValidationError naming the field, before any 501', async () => {
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
