import type { Task, TaskList } from 'graphile-worker';
import { requeueOrphaned } from '#api/transactions/queue.ts';
import type { WorkerDeps } from '#api/worker/tasks.ts';
import { deliverDue } from './delivery.ts';
import { queueScan, queueSweep, type SubscriptionJob, TASK } from './queue.ts';
import { scanSubscription } from './scanner.ts';
import { defaultEventNotifierSettings } from './settings.ts';
import { sweep } from './sweep.ts';

const BUSY_RETRY_MS = 1_000;

/**
 * The event notifier's job processors: scan a subscription, deliver its due webhooks, and the periodic sweep
 * that recovers jobs lost with a killed worker. Creating them queues the sweep, so every worker that starts
 * also restarts the recovery.
 */
export function eventNotifierTasks(deps: WorkerDeps): TaskList {
  const settings = deps.eventNotifier ?? defaultEventNotifierSettings();
  const common = { db: deps.db, settings, signal: deps.signal };
  queueSweep(deps.db.pool).catch((error) => {
    if (!deps.signal.aborted) console.error(`[event-notifier] could not queue the sweep: ${(error as Error).message}`);
  });
  // The sweep re-queues itself when it ends; should that fail (the database gone at that moment), its job stays
  // locked. So every worker also makes sure, now and then, that a sweep is queued.
  const keepSweeping = setInterval(() => {
    if (!deps.signal.aborted) queueSweep(deps.db.pool, undefined, true).catch(() => {});
  }, settings.sweepIntervalMs * 6);
  keepSweeping.unref();
  deps.signal.addEventListener('abort', () => clearInterval(keepSweeping), { once: true });

  const scan: Task = async (payload) => {
    const { subscriptionId } = payload as SubscriptionJob;
    const outcome = await scanSubscription({ ...common, chains: deps.chains }, subscriptionId);
    // Another scan of it holds the subscription: usually one just queueing this job as it ends, still holding the
    // lock for a moment. Look again in a second, unless a scan is queued already (the holder's next one).
    if (outcome.kind === 'busy') {
      await queueScan(deps.db.pool, subscriptionId, new Date(Date.now() + BUSY_RETRY_MS), true);
    }
  };
  const deliver: Task = async (payload) => {
    await deliverDue({ ...common, masterKey: deps.masterKey }, (payload as SubscriptionJob).subscriptionId);
  };
  const sweepTask: Task = async () => {
    try {
      // Grace: a healthy queue runs due jobs within a few poll intervals; later than this, the job was lost.
      const graceMs = Math.max(15_000, settings.sweepIntervalMs * 3);
      await sweep(deps.db, graceMs);
      // The same for transactions: wallets with unfinished work that no sender or monitor is doing.
      await requeueOrphaned(deps.db, graceMs);
    } finally {
      if (!deps.signal.aborted) await queueSweep(deps.db.pool, new Date(Date.now() + settings.sweepIntervalMs));
    }
  };
  return { [TASK.scan]: scan, [TASK.deliver]: deliver, [TASK.sweep]: sweepTask };
}
