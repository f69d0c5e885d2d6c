// Jobs queued under the names of an older release are moved to the current names by the migrations.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { migrate } from '#api/db/migrate.ts';
import { addJob } from '#api/jobs/addJob.ts';
import { jobsDatabaseForSuite } from '../helpers/jobsFixture.ts';

describe('the jobs layer: an upgrade of job names', () => {
  const suite = jobsDatabaseForSuite();

  it('an upgrade moves jobs queued under the old names to the new ones', async () => {
    await addJob(
      suite.database.db.pool,
      'transaction-send',
      { walletId: 1, networkId: 1337 },
      { jobKey: 'transaction-send:1:1337' },
    );
    await addJob(
      suite.database.db.pool,
      'transaction-monitor',
      { walletId: 1, networkId: 1337 },
      { jobKey: 'transaction-monitor:1:1337' },
    );
    await addJob(
      suite.database.db.pool,
      'eventNotifier.scan',
      { subscriptionId: 's1' },
      { jobKey: 'event-notifier:scan:s1' },
    );
    await addJob(suite.database.db.pool, 'eventNotifier.sweep', {}, { jobKey: 'event-notifier:sweep' });
    // A job the new code queued already under the new key wins over the old one.
    await addJob(
      suite.database.db.pool,
      'transaction:monitor',
      { walletId: 1, networkId: 1337 },
      { jobKey: 'transaction:monitor:1:1337' },
    );
    await suite.database.db.query(`DELETE FROM schema_migrations WHERE version = '009_job_names.sql'`);
    assert.deepEqual(await migrate(suite.database.db), ['009_job_names.sql']);
    const { rows } = await suite.database.db.query<{ task: string; key: string }>(
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
