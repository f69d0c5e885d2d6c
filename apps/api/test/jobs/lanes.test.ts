// The worker's lanes: each lane's runner has its own concurrency, asks the database for jobs once a second, and
// hands back what it took while its slots were busy.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import Type from 'typebox';
import { defineJob } from '#api/jobs/defineJob.ts';
import { createWorker, type Worker } from '#api/worker/worker.ts';
import { createTestDatabase } from '#api-testing/testDatabase.ts';
import { held, jobsDatabaseForSuite, opened } from '../helpers/jobsFixture.ts';

describe('the jobs layer: lanes and their runners', () => {
  const suite = jobsDatabaseForSuite();

  it("each lane has its own concurrency: jobs filling one lane neither exceed it nor hold up another lane's", async () => {
    const started: unknown[] = [];
    const { gate, release } = opened();
    const slow = held('test:slow', 'delivering', started, gate);
    const sent: number[] = [];
    const quick = defineJob({
      name: 'test:quick',
      lane: 'sending',
      payload: Type.Object({ id: Type.Integer() }),
      subject: ({ id }) => String(id),
      maxAttempts: 1,
      async run({ payload }) {
        sent.push(payload.id);
      },
    });
    const worker = createWorker({ deps: suite.deps, jobs: [slow, quick], concurrency: { delivering: 2, sending: 1 } });
    await worker.start();
    try {
      for (const id of [11, 12, 13]) await slow.enqueue(suite.database.db.pool, { id });
      const deadline = Date.now() + 15_000;
      while (started.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      for (const id of [21, 22, 23]) await quick.enqueue(suite.database.db.pool, { id });
      while (sent.length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.deepEqual([...sent].sort(), [21, 22, 23], 'the sending lane runs while the delivering lane is full');
      assert.equal(started.length, 2, 'the delivering lane runs two at a time');
      release();
      while (started.length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(started.length, 3, 'the third runs once one ends');
    } finally {
      release();
      await worker.stop();
    }
  });

  it('an idle worker asks the database for jobs once a second per lane, not once per slot', async () => {
    // Every statement the pool's clients are sent while counting (graphile-worker takes a client per fetch).
    let counting = false;
    let statements = 0;
    const wrapped = new WeakSet<object>();
    const onAcquire = (client: { query: (...args: unknown[]) => unknown }) => {
      if (wrapped.has(client)) return;
      wrapped.add(client);
      const query = client.query;
      client.query = function (this: unknown, ...args: unknown[]) {
        if (counting) statements++;
        return query.apply(this, args);
      };
    };
    // A database of its own: nothing queued but what the worker queues itself.
    const idle = await createTestDatabase();
    idle.db.pool.on('acquire', onAcquire);
    const worker = createWorker({ deps: { ...suite.deps, db: idle.db } });
    await worker.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_500)); // the first sweep, queued at start, done
      counting = true;
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      counting = false;
      // Five lanes polling once a second, a sweep and what it queues: 45 counted. A poll per slot (29 slots): 163.
      assert.ok(statements <= 60, `an idle worker sent ${statements} statements in 5 s`);
    } finally {
      await worker.stop();
      await idle.drop();
    }
  });

  it('a job a runner took while its slots were busy goes back after LOCAL_QUEUE_TTL_MS, and another worker runs it', async () => {
    const started: unknown[] = [];
    const { gate, release } = opened();
    const job = held('test:handed-on', 'delivering', started, gate);
    const lockedJob = async (id: number) => {
      const { rows } = await suite.database.db.query(
        `SELECT 1 FROM graphile_worker._private_jobs WHERE key = $1 AND locked_at IS NOT NULL`,
        [`test:handed-on:${id}`],
      );
      return rows[0] ? true : undefined;
    };
    const first = createWorker({ deps: suite.deps, jobs: [job], concurrency: { delivering: 1 } });
    await first.start();
    let second: Worker | undefined;
    try {
      await job.enqueue(suite.database.db.pool, { id: 31 });
      await waitFor(async () => (started.includes(31) ? true : undefined), 10_000, 'job 31 to start');
      await job.enqueue(suite.database.db.pool, { id: 32 });
      // The first worker's one slot is busy with 31; its runner takes 32 all the same, and holds it.
      await waitFor(() => lockedJob(32), 10_000, 'job 32 taken by the first worker');
      second = createWorker({ deps: suite.deps, jobs: [job], concurrency: { delivering: 1 } });
      await second.start();
      await waitFor(
        async () => (started.includes(32) ? true : undefined),
        5_000,
        'job 32 to start on the second worker',
      );
      assert.deepEqual(started, [31, 32], '31 still holds the first worker: 32 ran on the second');
    } finally {
      release();
      await second?.stop();
      await first.stop();
    }
  });
});
