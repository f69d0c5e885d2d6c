// A job's payload is checked against its schema once, before anything runs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AnyJob } from '#api/jobs/defineJob.ts';
import type { WorkerDeps } from '#api/jobs/workerDeps.ts';
import { createLogger } from '#api/runtime/logger.ts';
import { captureLogs } from '#api-testing/logCapture.ts';
import { counted, jobsDatabaseForSuite, taskFor } from '../helpers/jobsFixture.ts';

describe('the jobs layer: payloads', () => {
  const suite = jobsDatabaseForSuite();
  const taskOf = (job: AnyJob, taskDeps: WorkerDeps = suite.deps) => taskFor(taskDeps, job);

  it('drops a job whose payload does not match its schema, saying so once', async () => {
    const runs: unknown[] = [];
    const job = counted('test:checked', runs);
    const logs = captureLogs();
    const task = taskOf(job, { ...suite.deps, log: createLogger(logs.logger) });
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
});
