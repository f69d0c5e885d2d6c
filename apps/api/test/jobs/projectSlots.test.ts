// A job's cap per project (perProject): at most `limit` of its kind run at once for one project, across workers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AnyJob } from '#api/jobs/defineJob.ts';
import type { WorkerDeps } from '#api/jobs/workerDeps.ts';
import { held, jobsDatabaseForSuite, opened, queuedJobs, taskFor } from '../helpers/jobsFixture.ts';

describe('the jobs layer: project slots', () => {
  const suite = jobsDatabaseForSuite();
  const queued = (name: string) => queuedJobs(suite.database.db, name);
  const taskOf = (job: AnyJob, taskDeps: WorkerDeps = suite.deps) => taskFor(taskDeps, job);

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
});
