// iterateTransactions and waitForTransaction against a loopback server that plays the transaction operations.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { FINAL_TRANSACTION_STATUSES, MountainClient, TimeoutError } from './index.ts';
import { json, type LoopbackServer, type Responder, startLoopbackServer } from './testing.ts';

const servers: LoopbackServer[] = [];
after(() => Promise.all(servers.map((s) => s.close())));

async function serve(respond: Responder) {
  const server = await startLoopbackServer(respond);
  servers.push(server);
  return { server, client: new MountainClient({ apiKey: 'k', baseUrl: server.baseUrl }) };
}

describe('iterateTransactions', () => {
  it('walks every page, passing the status filter and page size', async () => {
    const ids = ['t1', 't2', 't3', 't4', 't5'];
    const { server, client } = await serve((request, res) => {
      const query = new URL(request.url, 'http://x').searchParams;
      const page = Number(query.get('page'));
      const perPage = Number(query.get('perPage'));
      const transactions = ids.slice((page - 1) * perPage, page * perPage).map((id) => ({ id, status: 'succeeded' }));
      const meta = { pageNumber: page, perPage, totalPage: Math.ceil(ids.length / perPage), totalItems: ids.length };
      json(res, 200, { data: { transactions }, meta });
    });
    const seen: string[] = [];
    for await (const transaction of client.iterateTransactions({ status: 'succeeded', perPage: 2 }))
      seen.push(transaction.id);
    assert.deepEqual(seen, ids);
    assert.deepEqual(
      server.requests.map((r) => r.url.replace(/^.*\?/, '')),
      ['page=1&perPage=2&status=succeeded', 'page=2&perPage=2&status=succeeded', 'page=3&perPage=2&status=succeeded'],
    );
  });

  it('yields a transaction once when a newer one pushed it to the next page meanwhile', async () => {
    const pages = [
      ['t9', 't8'],
      ['t8', 't7'],
    ]; // t10 was created between the two requests
    const { client } = await serve((_, res, i) => {
      const transactions = (pages[i] ?? []).map((id) => ({ id, status: 'created' }));
      json(res, 200, { data: { transactions }, meta: { pageNumber: i + 1, perPage: 2, totalPage: 2, totalItems: 4 } });
    });
    const seen: string[] = [];
    for await (const transaction of client.iterateTransactions({ perPage: 2 })) seen.push(transaction.id);
    assert.deepEqual(seen, ['t9', 't8', 't7']);
  });

  it('stops at an empty page, and asks only for the pages iterated', async () => {
    const { server, client } = await serve((_, res) =>
      json(res, 200, {
        data: { transactions: [] },
        meta: { pageNumber: 1, perPage: 100, totalPage: 0, totalItems: 0 },
      }),
    );
    for await (const _ of client.iterateTransactions()) assert.fail('no transactions');
    assert.equal(server.requests.length, 1);
    assert.match(server.requests[0]?.url ?? '', /\?page=1&perPage=100$/);
  });
});

describe('waitForTransaction', () => {
  it('polls until a final status and resolves with the transaction', async () => {
    const statuses = ['created', 'processing', 'broadcasted', 'succeeded'];
    const { server, client } = await serve((_, res, i) =>
      json(res, 200, { transaction: { id: 'tx', status: statuses[Math.min(i, 3)] } }),
    );
    const transaction = await client.waitForTransaction('tx', { intervalMs: 5 });
    assert.deepEqual(transaction, { id: 'tx', status: 'succeeded' });
    assert.equal(server.requests.length, 4);
    assert.ok(server.requests.every((r) => r.url.endsWith('/transaction/get-transaction?transactionId=tx')));
  });

  it('resolves at once on each final status', async () => {
    assert.deepEqual(
      [...FINAL_TRANSACTION_STATUSES],
      ['succeeded', 'reverted', 'broadcast-failed', 'monitor-failed', 'cancelled'],
    );
    assert.ok(Object.isFrozen(FINAL_TRANSACTION_STATUSES));
    for (const status of FINAL_TRANSACTION_STATUSES) {
      const { server, client } = await serve((_, res) => json(res, 200, { transaction: { id: 'tx', status } }));
      assert.equal((await client.waitForTransaction('tx')).status, status);
      assert.equal(server.requests.length, 1);
    }
  });

  it('rejects with a TimeoutError carrying the last state after timeoutMs', async () => {
    const { client } = await serve((_, res) => json(res, 200, { transaction: { id: 'tx', status: 'broadcasted' } }));
    await assert.rejects(client.waitForTransaction('tx', { intervalMs: 10, timeoutMs: 50 }), (error) => {
      assert.ok(error instanceof TimeoutError);
      assert.equal(error.code, 'TIMEOUT');
      assert.match(error.message, /Transaction tx is still broadcasted after 50 ms/);
      assert.deepEqual(error.body, { id: 'tx', status: 'broadcasted' });
      return true;
    });
  });

  it('stops when its signal aborts', async () => {
    const controller = new AbortController();
    const { client } = await serve((_, res, i) => {
      if (i === 1) controller.abort(new Error('stop waiting'));
      json(res, 200, { transaction: { id: 'tx', status: 'created' } });
    });
    await assert.rejects(
      client.waitForTransaction('tx', { intervalMs: 5, timeoutMs: 60_000, signal: controller.signal }),
      /stop waiting/,
    );
  });
});
