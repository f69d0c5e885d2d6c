import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '#api-testing/testDatabase.ts';
import { type Cluster, startCluster } from '../scripts/lib/cluster.ts';
import { checkInvariants, checkRecovery } from '../scripts/lib/invariants.ts';
import {
  blockNumber,
  describeAnswers,
  runExecutions,
  setUpProject,
  startWebhookReceiver,
} from '../scripts/lib/workload.ts';

// The short variants of `npm run faults` and `npm run bench:scale`: 2 API and 2 worker processes on one database,
// a mixed load of executions and webhook deliveries, then the invariants read from the database and the chain.
describe('a cluster of 2 API and 2 worker processes', { timeout: 300_000 }, () => {
  let database: TestDatabase;
  let cluster: Cluster;

  before(async () => {
    database = await createTestDatabase();
    cluster = await startCluster({
      name: 'test',
      apis: 2,
      workers: 2,
      databaseUrl: database.url,
      env: { WEBHOOK_BACKOFF_BASE_MS: '200', WEBHOOK_BACKOFF_MAX_MS: '2000' },
    });
  });
  after(async () => {
    await cluster?.stop();
    await database?.drop();
  });

  it('shares the work without doing any twice: each transaction sent once, each record delivered once', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const fromBlock = await blockNumber(cluster.anvilUrl);
      const projects = [
        await setUpProject(cluster, 'Scale A', receiver.url),
        await setUpProject(cluster, 'Scale B', receiver.url),
      ];
      const tally = await runExecutions(cluster, projects, { rate: 15, durationMs: 12_000 });
      assert.equal(
        tally.status5xx + tally.connectionErrors + tally.status4xx,
        0,
        `every request accepted: ${describeAnswers(tally)}`,
      );
      const report = await checkInvariants(cluster, projects, tally.accepted, receiver, {
        fromBlock,
        exactlyOnceDelivery: true,
        settleMs: 90_000,
      });
      assert.deepEqual(report.violations, []);
      assert.equal(report.figures.byStatus.succeeded, tally.accepted.size);
      assert.equal(report.figures.eventsRecorded, tally.accepted.size);
      assert.equal(report.figures.redeliveries, 0);
    } finally {
      await receiver.close();
    }
  });

  it('an API and a worker process SIGKILLed under load: nothing lost, duplicated or stuck, no manual step', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const fromBlock = await blockNumber(cluster.anvilUrl);
      const projects = [
        await setUpProject(cluster, 'Faults A', receiver.url),
        await setUpProject(cluster, 'Faults B', receiver.url),
      ];
      const load = runExecutions(cluster, projects, { rate: 15, durationMs: 16_000 });
      const [api1] = cluster.apis;
      const [worker1] = cluster.workers;
      await new Promise((r) => setTimeout(r, 4_000));
      const killedWorker = worker1?.pid();
      await worker1?.kill();
      await new Promise((r) => setTimeout(r, 2_000));
      const killedApi = api1?.pid();
      await api1?.kill();
      await Promise.all([worker1?.restart(), api1?.restart()]);
      assert.notEqual(worker1?.pid(), killedWorker);
      assert.notEqual(api1?.pid(), killedApi);
      const tally = await load;
      assert.ok(tally.accepted.size > 30, `accepted ${tally.accepted.size}`);
      assert.equal(tally.status4xx, 0, describeAnswers(tally));

      const report = await checkInvariants(cluster, projects, tally.accepted, receiver, {
        fromBlock,
        settleMs: 90_000,
      });
      assert.deepEqual(report.violations, []);
      assert.equal(report.figures.lost, 0);
      // Requests cut off by the kill may have been accepted too: at least every 2xx one succeeded.
      assert.ok((report.figures.byStatus.succeeded ?? 0) >= tally.accepted.size);
      assert.equal(report.figures.eventsMissing + report.figures.eventsDuplicated, 0);
      assert.deepEqual(await checkRecovery(cluster, projects[0] as (typeof projects)[number]), []);
    } finally {
      await receiver.close();
    }
  });
});

describe('a PostgreSQL restart under load', { timeout: 300_000 }, () => {
  let cluster: Cluster;

  before(async () => {
    cluster = await startCluster({
      name: 'pg-restart',
      apis: 1,
      workers: 1,
      env: { WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_BACKOFF_BASE_MS: '200', WEBHOOK_BACKOFF_MAX_MS: '2000' },
    });
  });
  after(async () => {
    await cluster?.stop();
  });

  it('the worker process keeps running and finishes every job, including those whose result it could not store', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const fromBlock = await blockNumber(cluster.anvilUrl);
      const projects = [await setUpProject(cluster, 'Restart', receiver.url)];
      // The load ends while PostgreSQL is down: no later execution wakes the sender or the monitor again.
      const load = runExecutions(cluster, projects, { rate: 20, durationMs: 9_000 });
      await new Promise((r) => setTimeout(r, 5_000));
      await cluster.restartPostgres(5_000);
      const tally = await load;
      assert.ok(tally.accepted.size > 10, `accepted ${tally.accepted.size}`);
      const report = await checkInvariants(cluster, projects, tally.accepted, receiver, {
        fromBlock,
        settleMs: 60_000,
      });
      assert.deepEqual(
        cluster
          .all()
          .filter((p) => !p.running())
          .map((p) => `${p.name}: ${p.log()}`),
        [],
        'every process survived',
      );
      assert.deepEqual(report.violations, []);
      assert.deepEqual(await checkRecovery(cluster, projects[0] as (typeof projects)[number]), []);
    } finally {
      await receiver.close();
    }
  });
});
