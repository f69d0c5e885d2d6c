// What the jobs layer's tests share: a fresh database with the worker's dependencies on it, the jobs queued under a
// name, a job's graphile-worker task to call directly, and small jobs that count or hold their runs.
import { randomBytes } from 'node:crypto';
import { after, before } from 'node:test';
import Type from 'typebox';
import { createChains } from '#api/chain/chains.ts';
import type { Db } from '#api/db/db.ts';
import { type AnyJob, defineJob } from '#api/jobs/defineJob.ts';
import { createTaskList } from '#api/jobs/taskList.ts';
import type { WorkerDeps } from '#api/jobs/workerDeps.ts';
import { loadWalletKeys } from '#api/wallets/fromMnemonic/walletKeys.ts';
import { createSignerProvider } from '#api/wallets/signer.ts';
import { createTestDatabase, type TestDatabase } from '#api-testing/testDatabase.ts';

/** A fresh database and the worker's dependencies on it (no chain), stopped by `signal`. */
async function openJobsDatabase(signal: AbortSignal): Promise<{ database: TestDatabase; deps: WorkerDeps }> {
  const database = await createTestDatabase();
  const masterKey = randomBytes(32);
  const deps: WorkerDeps = {
    db: database.db,
    chains: createChains({}),
    signers: createSignerProvider(await loadWalletKeys(database.db, masterKey)),
    masterKey,
    signal,
  };
  return { database, deps };
}

/**
 * A fresh jobs database for the enclosing `describe`: opened before its tests, stopped and dropped after them. Read
 * `database` and `deps` inside the tests (they are set once `before` has run).
 */
export function jobsDatabaseForSuite(): { readonly database: TestDatabase; readonly deps: WorkerDeps } {
  const stop = new AbortController();
  const suite = {} as { database: TestDatabase; deps: WorkerDeps };
  before(async () => {
    Object.assign(suite, await openJobsDatabase(stop.signal));
  });
  after(async () => {
    stop.abort();
    await suite.database?.drop();
  });
  return suite;
}

/** The jobs queued under the task `name`, by key. */
export const queuedJobs = async (db: Db, name: string) =>
  (
    await db.query<{ key: string; payload: unknown; runAt: Date }>(
      `SELECT j.key, j.payload, j.run_at AS "runAt" FROM graphile_worker._private_jobs j
         JOIN graphile_worker._private_tasks t ON t.id = j.task_id WHERE t.identifier = $1 ORDER BY j.key`,
      [name],
    )
  ).rows;

/** The graphile-worker task that runs `job` (its lock, its project's slots, its logging), to call directly. */
export const taskFor = (deps: WorkerDeps, job: AnyJob) =>
  createTaskList(deps, [job])[job.name] as (payload: unknown, helpers: never) => Promise<void>;

/** A job under a lock (keepQueued) that records each payload it runs in `runs`. */
export const counted = (name: string, runs: unknown[]) =>
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

/** A gate the `held` jobs wait at, and what opens it. */
export const opened = () => {
  let release = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { gate, release };
};

/** A job of `lane`, capped at two per project, that runs until `gate` opens, recording each start in `started`. */
export const held = (name: string, lane: 'sending' | 'delivering', started: unknown[], gate: Promise<void>) =>
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
