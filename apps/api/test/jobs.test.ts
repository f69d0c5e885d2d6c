import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import Type from 'typebox';
import { createChains } from '#api/chain/chains.ts';
import { migrate } from '#api/db/migrate.ts';
import { addJob } from '#api/jobs/addJob.ts';
import { advisoryLockHeld, tryAdvisoryLock } from '#api/jobs/advisoryLock.ts';
import { type AnyJob, defineJob } from '#api/jobs/defineJob.ts';
import { createTaskList } from '#api/jobs/taskList.ts';
import type { WorkerDeps } from '#api/jobs/workerDeps.ts';
import { createLogger } from '#api/runtime/logger.ts';
import { loadWalletKeys } from '#api/wallets/fromMnemonic/walletKeys.ts';
import { createSignerProvider } from '#api/wallets/signer.ts';
import { createWorker, type Worker } from '#api/worker/worker.ts';
import { captureLogs } from '#api-testing/logCapture.ts';
import { createTestDatabase, type TestDatabase } from '#api-testing/testDatabase.ts';

describe('the jobs layer', () => {
  let database: TestDatabase;
  let deps: WorkerDeps;
  const stop = new AbortController();
  before(async () => {
    database = await createTestDatabase();
    const masterKey = randomBytes(32);
    deps = {
      db: database.db,
      chains: createChains({}),
      signers: createSignerProvider(await loadWalletKeys(database.db, masterKey)),
      masterKey,
      signal: stop.signal,
    };
  });
  after(async () => {
    stop.abort();
    await database?.drop();
  });

  const queued = async (name: string) =>
    (
      await database.db.query<{ key: string; payload: unknown; runAt: Date }>(
        `SELECT j.key, j.payload, j.run_at AS "runAt" FROM graphile_worker._private_jobs j
           JOIN graphile_worker._private_tasks t ON t.id = j.task_id WHERE t.identifier = $1 ORDER BY j.key`,
        [name],
      )
    ).rows;

  /** The graphile-worker task that runs `job` (its lock, its project's slots, its logging), to call directly. */
  const taskOf = (job: AnyJob, taskDeps: WorkerDeps = deps) =>
    createTaskList(taskDeps, [job])[job.name] as (payload: unknown, helpers: never) => Promise<void>;

  const counted = (name: string, runs: unknown[]) =>
    defineJob({
      name,
      lane: 'scanning',
      payload: Type.Object({ id: Type.Integer() }),
      subject: ({ id }) => String(id),
      maxAttempts: 3,
      lock: { key: ({ id }) => [727_099, id], retryInMs: () => 2_000, keepQueued: true },
      async run({ payload }) {
        runs.push(payload);
      },
    });

  it('runs a job under its lock, and queues it again later when another session holds the lock', async () => {
    const runs: unknown[] = [];
    const job = counted('test:locked', runs);
    const task = taskOf(job);
    await task({ id: 7 }, {} as never);
    assert.deepEqual(runs, [{ id: 7 }]);
    assert.equal(await advisoryLockHeld(database.db, [727_099, 7]), false, 'released after the run');

    const holder = await tryAdvisoryLock(database.db, [727_099, 7]);
    assert.ok(holder);
    try {
      assert.equal(await advisoryLockHeld(database.db, [727_099, 7]), true);
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

    await database.db.query(
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
          assert.equal(await advisoryLockHeld(database.db, [727_099, id]), false, 'called once the lock is free');
          looked.push(id);
        },
      },
      async run({ payload, requeue }) {
        runs.push(payload.id);
        await new Promise<void>((resolve) => gates.set(payload.id, resolve));
        if (payload.id === 6) throw new Error('a failed run');
        // A back-off of its own (a fee cap below the base fee, a custodian's rate limit).
        await requeue(database.db.pool, { runAt: new Date(Date.now() + 60_000) });
      },
    });
    const logs = captureLogs();
    const task = taskOf(job, { ...deps, log: createLogger(logs.logger) });
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
    const lock = await tryAdvisoryLock(database.db, [727_098, 'a-subscription-id']);
    assert.ok(lock);
    try {
      assert.equal(await advisoryLockHeld(database.db, [727_098, 'a-subscription-id']), true);
      assert.equal(await advisoryLockHeld(database.db, [727_098, 'another-id']), false);
      assert.equal(await tryAdvisoryLock(database.db, [727_098, 'a-subscription-id']), undefined);
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
        assert.equal(await advisoryLockHeld(database.db, [727_100, 1]), false, 'pg_locks shows the whole server');
      } finally {
        await lock.release();
      }
    } finally {
      await other.drop();
    }
  });

  /** A job of `lane` that runs until `release` is called, recording each start in `started`. */
  /** A gate the `held` jobs wait at, and what opens it. */
  const opened = () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    return { gate, release };
  };

  const held = (name: string, lane: 'sending' | 'delivering', started: unknown[], gate: Promise<void>) =>
    defineJob({
      name,
      lane,
      payload: Type.Object({ id: Type.Integer(), project: Type.Optional(Type.Integer()) }),
      subject: ({ id }) => String(id),
      projectOf: async (_db, { project }) => project ?? null,
      maxAttempts: 1,
      perProject: {
        classId: 727_097,
        limit: () => 2,
        retryInMs: () => 3_000,
      },
      async run({ payload }) {
        started.push(payload.id);
        await gate;
      },
    });

  it('runs at most `limit` jobs of a kind at once for one project; the next waits, other projects run', async () => {
    const started: unknown[] = [];
    const { gate, release } = opened();
    const job = held('test:capped', 'delivering', started, gate);
    const task = taskOf(job);
    const running = [task({ id: 1, project: 1 }, {} as never), task({ id: 2, project: 1 }, {} as never)];
    while (started.length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    const before = Date.now();
    await task({ id: 3, project: 1 }, {} as never);
    assert.deepEqual([...started].sort(), [1, 2], "the project's third job does not run while two do");
    const [again] = await queued('test:capped');
    assert.equal(again?.key, 'test:capped:3');
    const delay = (again?.runAt.getTime() ?? 0) - before;
    assert.ok(delay >= 2_900 && delay < 10_000, `queued again ${delay} ms later`);
    const other = task({ id: 4, project: 2 }, {} as never);
    while (started.length < 3) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(started.slice(2), [4], 'another project runs meanwhile');
    release();
    await Promise.all([...running, other]);
    await task({ id: 3, project: 1 }, {} as never);
    assert.deepEqual(started.slice(2), [4, 3], 'runs once a slot is free');
  });

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
    const worker = createWorker({ deps, jobs: [slow, quick], concurrency: { delivering: 2, sending: 1 } });
    await worker.start();
    try {
      for (const id of [11, 12, 13]) await slow.enqueue(database.db.pool, { id });
      const deadline = Date.now() + 15_000;
      while (started.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      for (const id of [21, 22, 23]) await quick.enqueue(database.db.pool, { id });
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
    const worker = createWorker({ deps: { ...deps, db: idle.db } });
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
      const { rows } = await database.db.query(
        `SELECT 1 FROM graphile_worker._private_jobs WHERE key = $1 AND locked_at IS NOT NULL`,
        [`test:handed-on:${id}`],
      );
      return rows[0] ? true : undefined;
    };
    const first = createWorker({ deps, jobs: [job], concurrency: { delivering: 1 } });
    await first.start();
    let second: Worker | undefined;
    try {
      await job.enqueue(database.db.pool, { id: 31 });
      await waitFor(async () => (started.includes(31) ? true : undefined), 10_000, 'job 31 to start');
      await job.enqueue(database.db.pool, { id: 32 });
      // The first worker's one slot is busy with 31; its runner takes 32 all the same, and holds it.
      await waitFor(() => lockedJob(32), 10_000, 'job 32 taken by the first worker');
      second = createWorker({ deps, jobs: [job], concurrency: { delivering: 1 } });
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

  it('drops a job whose payload does not match its schema, saying so once', async () => {
    const runs: unknown[] = [];
    const job = counted('test:checked', runs);
    const logs = captureLogs();
    const task = taskOf(job, { ...deps, log: createLogger(logs.logger) });
    await task({ id: 'seven' }, { job: { id: '41', attempts: 1, max_attempts: 3 } } as never);
    assert.deepEqual(runs, []);
    const said = logs.entries().filter((e) => e.msg?.includes('test:checked: invalid payload'));
    assert.equal(said.length, 1);
    assert.match(said[0]?.msg ?? '', /\/id must be integer/);
    assert.deepEqual(
      [said[0]?.level, said[0]?.job, said[0]?.jobId, said[0]?.projectId],
      [50, 'test:checked', '41', null],
    );
  });

  it('an upgrade moves jobs queued under the old names to the new ones', async () => {
    await addJob(
      database.db.pool,
      'transaction-send',
      { walletId: 1, networkId: 1337 },
      { jobKey: 'transaction-send:1:1337' },
    );
    await addJob(
      database.db.pool,
      'transaction-monitor',
      { walletId: 1, networkId: 1337 },
      { jobKey: 'transaction-monitor:1:1337' },
    );
    await addJob(
      database.db.pool,
      'eventNotifier.scan',
      { subscriptionId: 's1' },
      { jobKey: 'event-notifier:scan:s1' },
    );
    await addJob(database.db.pool, 'eventNotifier.sweep', {}, { jobKey: 'event-notifier:sweep' });
    // A job the new code queued already under the new key wins over the old one.
    await addJob(
      database.db.pool,
      'transaction:monitor',
      { walletId: 1, networkId: 1337 },
      { jobKey: 'transaction:monitor:1:1337' },
    );
    await database.db.query(`DELETE FROM schema_migrations WHERE version = '009_job_names.sql'`);
    assert.deepEqual(await migrate(database.db), ['009_job_names.sql']);
    const { rows } = await database.db.query<{ task: string; key: string }>(
      `SELECT task_identifier AS task, key FROM graphile_worker.jobs WHERE key NOT LIKE 'test:%' ORDER BY key`,
    );
    assert.deepEqual(rows, [
      { task: 'event-notifier:scan', key: 'event-notifier:scan:s1' },
      { task: 'jobs:sweep', key: 'jobs:sweep' },
      { task: 'transaction:monitor', key: 'transaction:monitor:1:1337' },
      { task: 'transaction:send', key: 'transaction:send:1:1337' },
    ]);
  });
});
