// One definition per job: whatever queues a job, TypeScript or SQL (the triggers that write webhook messages,
// wakeSender), queues it with its definition's name, job key and attempts. The SQL side calls the queue functions
// generated from the definitions (jobs/jobsSql.ts); these tests fire each path on a real database and read what it
// queued.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO_ROOT } from '#api/config/config.ts';
import type { AnyJob } from '#api/jobs/defineJob.ts';
import { JOBS_SQL_FILE, jobsSql } from '#api/jobs/jobsSql.ts';
import { sendJob, wakeSender } from '#api/transactions/jobs.ts';
import { ensureSender } from '#api/transactions/senders.ts';
import { projectDeliverJob } from '#api/webhooks/delivery/jobs.ts';
import { JOBS } from '#api/worker/jobList.ts';
import { apiKey, createHarness, type Harness } from '#api-testing/harness.ts';

interface Queued {
  task: string;
  key: string;
  maxAttempts: number;
  payload: unknown;
}

/** A payload of the job's schema: every field an integer or a string (what the queue functions take). */
function samplePayload(job: AnyJob): Record<string, number | string> {
  const { properties = {} } = job.payload as { properties?: Record<string, { type?: string }> };
  return Object.fromEntries(
    Object.entries(properties).map(([name, property], i) => [
      name,
      property.type === 'integer' ? 41 + i : `0b6f3c2e-7d4a-4e1b-9c5d-00000000000${i}`,
    ]),
  );
}

/** The definition's own view of a payload's job: what every path must queue. */
const definitionOf = (job: AnyJob, payload: object): Queued => ({
  task: job.name,
  key: job.jobKey(payload as never),
  maxAttempts: job.maxAttempts,
  payload,
});

describe('one definition per job', () => {
  let h: Harness;
  let projectId: number;
  let endpointId: string;
  let walletId: number;

  before(async () => {
    h = await createHarness();
    const created = await h.project('Job definitions');
    projectId = created.project.id;
    const endpoint = await h.call('create-webhook-endpoint', {
      headers: apiKey(created.apiKey),
      body: { url: 'https://receiver.example.com/hook', eventTypes: ['endpoint.disabled'] },
    });
    assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
    endpointId = endpoint.body.webhookEndpoint.id;
    const { rows } = await h.db.query<{ walletId: number }>(
      'SELECT wallet_testnet_id AS "walletId" FROM projects WHERE id = $1',
      [projectId],
    );
    walletId = rows[0]?.walletId as number;
  });
  after(async () => {
    await h?.close();
  });

  /** The jobs queued now, then emptied, so that each path is read alone. */
  const takeQueued = async (): Promise<Queued[]> => {
    const { rows } = await h.db.query<Queued>(
      `SELECT t.identifier AS task, j.key, j.max_attempts AS "maxAttempts", j.payload
         FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id ORDER BY j.id`,
    );
    await h.db.query('DELETE FROM graphile_worker._private_jobs');
    return rows;
  };

  it('the generated SQL is committed exactly as the definitions write it, and marked @generated', () => {
    const committed = readFileSync(path.join(REPO_ROOT, JOBS_SQL_FILE), 'utf8');
    assert.equal(committed, jobsSql(JOBS), `${JOBS_SQL_FILE} is stale: run npm run openapi and commit it`);
    assert.match(committed, /@generated/);
  });

  it("each job's SQL queue function queues what its definition's enqueue queues", async () => {
    await takeQueued();
    for (const job of JOBS) {
      const payload = samplePayload(job);
      const args = Object.values(payload);
      await h.db.query(`SELECT ${job.queueFunction}(${args.map((_, i) => `$${i + 1}`).join(', ')})`, args);
      assert.deepEqual(await takeQueued(), [definitionOf(job, payload)], `${job.name} queued from SQL`);
      await job.enqueue(h.db.pool, payload as never);
      assert.deepEqual(await takeQueued(), [definitionOf(job, payload)], `${job.name} queued by enqueue`);
    }
  });

  it("a webhook message queues its project's delivery job as projectDeliverJob defines it, once per transaction", async () => {
    await takeQueued();
    const message = JSON.stringify({ endpoint: { id: endpointId, url: 'x', disabledReason: 'x' } });
    const writeMessage = `SELECT webhook_write_message($1, 'endpoint.disabled', NULL,
                            jsonb_populate_record(NULL::webhook_messages, jsonb_build_object('data', $2::jsonb)))`;
    // The function both triggers of migration 021 (a transaction's change, an event notifier's record) call.
    await h.db.query(writeMessage, [projectId, message]);
    assert.deepEqual(await takeQueued(), [definitionOf(projectDeliverJob, { projectId })]);

    const client = await h.db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(writeMessage, [projectId, message]);
      await client.query('DELETE FROM graphile_worker._private_jobs');
      await client.query(writeMessage, [projectId, message]);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    assert.deepEqual(await takeQueued(), [], 'the second message of a transaction queues nothing more');

    // Jobs queued for an endpoint before delivery by project, and the queueing of migration 030, by endpoint.
    await h.db.query('SELECT webhook_queue_endpoint($1)', [endpointId]);
    assert.deepEqual(await takeQueued(), [definitionOf(projectDeliverJob, { projectId })]);
    await h.db.query('SELECT webhook_queue_project($1)', [projectId]);
    assert.deepEqual(await takeQueued(), [definitionOf(projectDeliverJob, { projectId })]);
  });

  it('wakeSender queues the send job as sendJob defines it, and nothing while a wake is pending', async () => {
    await takeQueued();
    const target = { walletId, networkId: 1337 };
    await ensureSender(h.db, target);
    await wakeSender(h.db, target);
    assert.deepEqual(await takeQueued(), [definitionOf(sendJob, target)]);
    await wakeSender(h.db, target);
    assert.deepEqual(await takeQueued(), [], 'the pending wake makes a second one moot');
  });

  it('in the database, only the generated queue functions call add_job', async () => {
    const { rows } = await h.db.query<{ name: string }>(
      `SELECT p.proname AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = 'public' AND p.prosrc LIKE '%add_job%' ORDER BY 1`,
    );
    assert.deepEqual(
      rows.map((r) => r.name),
      JOBS.map((job) => job.queueFunction).sort(),
    );
  });

  it('in the sources, only the jobs layer names add_job', () => {
    const src = path.join(REPO_ROOT, 'apps/api/src');
    const naming = readdirSync(src, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .filter((file) => readFileSync(path.join(src, file), 'utf8').includes('add_job'))
      .sort();
    assert.deepEqual(naming, ['jobs/addJob.ts', 'jobs/jobsSql.ts']);
  });
});
