// A job's advisory lock: a run under it, the run queued again when another session holds it, the holder waking
// that run when it lets go (wakeOnRelease), the look after letting go (afterRelease), and how a lock is seen as held.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import Type from 'typebox';
import { advisoryLockHeld, tryAdvisoryLock } from '#api/jobs/advisoryLock.ts';
import { type AnyJob, defineJob } from '#api/jobs/defineJob.ts';
import type { WorkerDeps } from '#api/jobs/workerDeps.ts';
import { createLogger } from '#api/runtime/logger.ts';
import { captureLogs } from '#api-testing/logCapture.ts';
import { createTestDatabase } from '#api-testing/testDatabase.ts';
import { counted, jobsDatabaseForSuite, queuedJobs, taskFor } from '../helpers/jobsFixture.ts';

describe('the jobs layer: locks', () => {
  const suite = jobsDatabaseForSuite();
  const queued = (name: string) => queuedJobs(suite.database.db, name);
  const taskOf = (job: AnyJob, taskDeps: WorkerDeps = suite.deps) => taskFor(taskDeps, job);

  it('runs a job under its lock, and queues it again later when another session holds the lock', async () => {
    const runs: unknown[] = [];
    const job = counted('test:locked', runs);
    const task = taskOf(job);
    await task({ id: 7 }, {} as never);
    assert.deepEqual(runs, [{ id: 7 }]);
    assert.equal(await advisoryLockHeld(suite.database.db, [727_099, 7]), false, 'released after the run');

    const holder = await tryAdvisoryLock(suite.database.db, [727_099, 7]);
    assert.ok(holder);
    try {
      assert.equal(await advisoryLockHeld(suite.database.db, [727_099, 7]), true);
      const before = Date.now();
      await task({ id: 7 }, {} as never);
      assert.deepEqual(runs, [{ id: 7 }], 'not run while the lock is held');
      const [again] = await queued('test:locked');
      assert.equal(again?.key, 'test:locked:7');
      assert.deepEqual(again?.payload, { id: 7 });
      const delay = (again?.runAt.getTime() ?? 0) - before;
      assert.ok(delay >= 1_900 && delay < 10_000, `queued ${delay} ms later`);
    } finally {
      await holder.release();
    }
  });

  it('with wakeOnRelease, the holder starts at once the run that found its lock held, and queues none otherwise', async () => {
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const runs: number[] = [];
    const job = defineJob({
      name: 'test:wake',
      lane: 'sending',
      payload: Type.Object({ id: Type.Integer() }),
      subject: ({ id }) => String(id),
      maxAttempts: 3,
      lock: { key: ({ id }) => [727_096, id], retryInMs: () => 60_000, wakeOnRelease: true },
      async run({ payload }) {
        runs.push(payload.id);
        if (runs.length === 1) await gate;
      },
    });
    const task = taskOf(job);
    const holder = task({ id: 3 }, {} as never);
    await waitFor(async () => (runs.length === 1 ? true : undefined), 10_000, 'the first run');
    await task({ id: 3 }, {} as never);
    assert.deepEqual(runs, [3], 'refused while the first run holds the lock');
    const [later] = await queued('test:wake');
    assert.ok((later?.runAt.getTime() ?? 0) - Date.now() > 50_000, 'queued for its retry, a minute later');
    open();
    await holder;
    const [now] = await queued('test:wake');
    assert.equal(now?.key, 'test:wake:3');
    assert.ok((now?.runAt.getTime() ?? Number.POSITIVE_INFINITY) <= Date.now(), 'moved to now when the holder let go');

    await suite.database.db.query(
      `DELETE FROM graphile_worker._private_jobs WHERE task_id = (SELECT id FROM graphile_worker._private_tasks WHERE identifier = 'test:wake')`,
    );
    await task({ id: 4 }, {} as never);
    assert.deepEqual(runs, [3, 4]);
    assert.deepEqual(await queued('test:wake'), [], 'a run nobody waited for queues nothing');
  });

  it('with wakeOnRelease, a run the holder queues for later itself keeps its time; afterRelease follows a run that ended', async () => {
    const gates = new Map<number, () => void>();
    const runs: number[] = [];
    const looked: number[] = [];
    const job = defineJob({
      name: 'test:wake-later',
      lane: 'sending',
      payload: Type.Object({ id: Type.Integer() }),
      subject: ({ id }) => String(id),
      maxAttempts: 3,
      lock: {
        key: ({ id }) => [727_099, id],
        retryInMs: () => 60_000,
        wakeOnRelease: true,
        afterRelease: async (_deps, { id }) => {
          assert.equal(await advisoryLockHeld(suite.database.db, [727_099, id]), false, 'called once the lock is free');
          looked.push(id);
        },
      },
      async run({ payload, requeue }) {
        runs.push(payload.id);
        await new Promise<void>((resolve) => gates.set(payload.id, resolve));
        if (payload.id === 6) throw new Error('a failed run');
        // A back-off of its own (a fee cap below the base fee, a custodian's rate limit).
        await requeue(suite.database.db.pool, { runAt: new Date(Date.now() + 60_000) });
      },
    });
    const logs = captureLogs();
    const task = taskOf(job, { ...suite.deps, log: createLogger(logs.logger) });
    const runAt = async (id: number) =>
      (await queued('test:wake-later')).find((j) => j.key === `test:wake-later:${id}`)?.runAt.getTime() ?? Number.NaN;

    const backingOff = task({ id: 5 }, {} as never);
    await waitFor(async () => gates.get(5), 10_000, 'the run of 5');
    gates.get(5)?.();
    await backingOff;
    assert.ok((await runAt(5)) - Date.now() > 50_000, 'its own back-off is not pulled forward when it lets go');
    assert.deepEqual(looked, [5]);

    const failing = task({ id: 6 }, {} as never);
    await waitFor(async () => gates.get(6), 10_000, 'the run of 6');
    gates.get(6)?.();
    await assert.rejects(failing, /a failed run/);
    assert.deepEqual(looked, [5], 'not after a failed run: graphile-worker retries it');
  });

  it('a string lock object is hashed, and seen as held', async () => {
    const lock = await tryAdvisoryLock(suite.database.db, [727_098, 'a-subscription-id']);
    assert.ok(lock);
    try {
      assert.equal(await advisoryLockHeld(suite.database.db, [727_098, 'a-subscription-id']), true);
      assert.equal(await advisoryLockHeld(suite.database.db, [727_098, 'another-id']), false);
      assert.equal(await tryAdvisoryLock(suite.database.db, [727_098, 'a-subscription-id']), undefined);
    } finally {
      await lock.release();
    }
  });

  it('a lock held in another database of the same server is not held in this one', async () => {
    const other = await createTestDatabase();
    try {
      const lock = await tryAdvisoryLock(other.db, [727_100, 1]);
      assert.ok(lock);
      try {
        assert.equal(await advisoryLockHeld(other.db, [727_100, 1]), true);
        assert.equal(await advisoryLockHeld(suite.database.db, [727_100, 1]), false, 'pg_locks shows the whole server');
      } finally {
        await lock.release();
      }
    } finally {
      await other.drop();
    }
  });
});
