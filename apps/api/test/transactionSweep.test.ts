import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AnvilHandle, startAnvil } from '@mountain/testkit/anvil.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { deployCounter } from '@mountain/testkit/testContract.ts';
import { advisoryLockHeld, type LockKey, tryAdvisoryLock } from '#api/jobs/advisoryLock.ts';
import type { WorkerDeps } from '#api/jobs/workerDeps.ts';
import { monitorJob, monitorLock, sendJob, sendLock } from '#api/transactions/jobs.ts';
import type { WalletNetwork } from '#api/transactions/senders.ts';
import { createHarness, type Harness } from '#api-testing/harness.ts';
import { counterProject } from '#api-testing/transactionFlow.ts';

// A job that a killed worker, or a worker that lost its database connection while storing the job's outcome,
// leaves locked in the queue is not run again for hours. The periodic sweep finds wallets with unfinished
// transactions that nobody is working on and queues their sender or monitor again.
describe('orphaned transaction work: the sweep, and a run’s look as it lets go', () => {
  let anvil: AnvilHandle;
  let h: Harness;
  let counter: `0x${string}`;

  before(async () => {
    anvil = await startAnvil({ port: await freePort() });
    h = await createHarness({ rpcUrls: { 1337: anvil.url } });
    counter = await deployCounter(anvil.url);
  });
  after(async () => {
    await h?.close();
    await anvil?.stop();
  });

  // The sweep's work for transactions: each transaction job's recover, summed.
  const requeueOrphaned = async (graceMs: number) => {
    const deps = { db: h.db } as WorkerDeps;
    return ((await sendJob.recover?.(deps, graceMs)) ?? 0) + ((await monitorJob.recover?.(deps, graceMs)) ?? 0);
  };
  // PostgreSQL frees a closed session's locks a moment after its socket closes.
  const lockFreed = async (key: LockKey) => {
    const deadline = Date.now() + 5_000;
    while ((await advisoryLockHeld(h.db, key)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  };
  const jobs = async (walletId: number) =>
    (
      await h.db.query<{ task: string }>(
        `SELECT task_identifier AS task FROM graphile_worker.jobs WHERE key = ANY($1) ORDER BY 1`,
        [[sendJob.jobKey({ walletId, networkId: 1337 }), monitorJob.jobKey({ walletId, networkId: 1337 })]],
      )
    ).rows.map((r) => r.task);
  // A run letting go: its own job, taken by the worker, is still in the queue under the job key.
  const takenJob = async (job: typeof sendJob, target: WalletNetwork) => {
    await job.enqueue(h.db.pool, target);
    await h.db.query(`UPDATE graphile_worker._private_jobs SET locked_at = now(), locked_by = 'test' WHERE key = $1`, [
      job.jobKey(target),
    ]);
  };
  /** The runs queued under the job key and not taken: whether each is due. */
  const runsQueued = async (job: typeof sendJob, target: WalletNetwork) =>
    (
      await h.db.query<{ due: boolean }>(
        'SELECT run_at <= now() AS due FROM graphile_worker.jobs WHERE key = $1 AND locked_at IS NULL',
        [job.jobKey(target)],
      )
    ).rows.map((r) => r.due);
  /**
   * `count` increments of a fresh project (so a fresh wallet): their rows in order of acceptance, the wallet, and a
   * way to take the wallet's jobs away (as a lost job would), once the rows are where the test wants them.
   */
  async function executed(count: number, tag: string) {
    const p = await counterProject(h, counter, ['increment']);
    for (let i = 0; i < count; i++) {
      const res = await h.call('execute-transaction', {
        headers: p.headers,
        body: { contractActivatedFunctionId: p.ids.increment, functionArgs: ['1'], idempotencyKey: `${tag}${i}` },
      });
      assert.equal(res.status, 201);
    }
    const { rows } = await h.db.query<{ id: string; wallet: number }>(
      'SELECT id, system_wallet_id AS wallet FROM transactions WHERE project_id = $1 ORDER BY created_at',
      [p.projectId],
    );
    const walletId = rows[0]?.wallet as number;
    const forgetJobs = () =>
      h.db.query(`DELETE FROM graphile_worker._private_jobs WHERE key LIKE $1`, [`%:${walletId}:1337`]);
    return { p, ids: rows.map((r) => r.id), walletId, target: { walletId, networkId: 1337 }, forgetJobs };
  }

  it('queues the sender and monitor of a wallet whose jobs were lost, unless a process holds its lock', async () => {
    const { p, ids, walletId, target, forgetJobs } = await executed(2, 'orphan');
    // One transaction waits to be sent, one waits for its receipt; their jobs are gone.
    await h.db.query(
      `UPDATE transactions SET status = 'broadcasted', nonce = 0, transaction_hash = '0x' || repeat('1', 64)
        WHERE id = $1`,
      [ids[0]],
    );
    await forgetJobs();
    assert.deepEqual(await jobs(walletId), []);

    assert.equal(await requeueOrphaned(60_000), 0, 'recently touched: a sender may still be on it');
    await h.db.query(`UPDATE transactions SET updated_at = now() - interval '2 minutes' WHERE project_id = $1`, [
      p.projectId,
    ]);

    const send = await tryAdvisoryLock(h.db, sendLock(target));
    const monitor = await tryAdvisoryLock(h.db, monitorLock(target));
    try {
      assert.equal(await requeueOrphaned(60_000), 0, 'both locks held: a live process is on it');
    } finally {
      await send?.release();
    }
    await lockFreed(sendLock(target));
    assert.equal(await requeueOrphaned(60_000), 1, 'the sender is free');
    assert.deepEqual(await jobs(walletId), [sendJob.name]);
    await monitor?.release();
    await lockFreed(monitorLock(target));
    assert.equal(await requeueOrphaned(60_000), 2);
    assert.deepEqual(await jobs(walletId), [sendJob.name, monitorJob.name].sort());
  });

  // A run stops when the in-flight limit leaves no room. The monitor, recording receipts, frees room and wakes the
  // sender only when no run holds its lock: room freed while a run was on its way out would wait for the next block
  // that frees more, or, with nothing more in flight, for a new execution or the sweep.
  it('a sender run that lets go while room has freed for waiting transactions queues the sender again', async () => {
    const { ids, target, forgetJobs } = await executed(2, 'room');
    // The first is in flight and fills the limit of one; the second waits for room.
    await h.db.query(
      `UPDATE transactions SET status = 'broadcasted', nonce = 0, transaction_hash = '0x' || repeat('2', 64)
        WHERE id = $1`,
      [ids[0]],
    );
    await forgetJobs();
    const deps = {
      db: h.db,
      chains: h.deps.chains,
      transactions: { maxInFlight: { 1337: 1 } },
    } as unknown as WorkerDeps;
    await takenJob(sendJob, target);
    const letGo = () => sendJob.lock?.afterRelease?.(deps, target);

    await letGo();
    assert.deepEqual(await runsQueued(sendJob, target), [], 'no room: the monitor wakes the sender when it frees some');

    // The monitor records the receipt while the run holds the lock (its wake is skipped), then the run lets go.
    await h.db.query(`UPDATE transactions SET status = 'succeeded' WHERE id = $1`, [ids[0]]);
    await letGo();
    assert.deepEqual(await runsQueued(sendJob, target), [true], 'one run of the sender, due now');

    // A run that paused (a fee cap, a back-off) queued its own run for later: that stays as it is.
    await sendJob.enqueue(h.db.pool, target, { runAt: new Date(Date.now() + 60_000) });
    await letGo();
    assert.deepEqual(await runsQueued(sendJob, target), [false]);
  });

  // The monitor's own look after letting go: a row its custodian holds that arrived after its last pass, when it
  // queued no next run. The finishing run's own job still holds the job key while it lets go.
  it('a monitor run that lets go with a custodian’s row it has not seen queues the monitor again', async () => {
    const { ids, walletId, target, forgetJobs } = await executed(1, 'custodied');
    await h.db.query(
      `UPDATE transactions SET status = 'processing', custody_provider = 'fireblocks', custody_id = $2 WHERE id = $1`,
      [ids[0], `custodied-${walletId}`],
    );
    await forgetJobs();
    await takenJob(monitorJob, target);
    await monitorJob.lock?.afterRelease?.({ db: h.db } as WorkerDeps, target);
    assert.deepEqual(await runsQueued(monitorJob, target), [true], 'one run of the monitor, due now');
  });
});
