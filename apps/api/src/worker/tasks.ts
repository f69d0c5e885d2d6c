import type { TaskList } from 'graphile-worker';
import type { Chains } from '#api/chain/chains.ts';
import type { Db } from '#api/db/db.ts';
import type { EventNotifierSettings } from '#api/eventNotifier/settings.ts';
import { eventNotifierTasks } from '#api/eventNotifier/tasks.ts';
import type { SignerProvider } from '#api/wallets/signer.ts';
import { transactionTasks } from './transactionTasks.ts';

/** What job processors may use. Built once per worker process. */
export interface WorkerDeps {
  db: Db;
  chains: Chains;
  signers: SignerProvider;
  /** Decrypts secrets at rest (webhook secrets). */
  masterKey: Buffer;
  /** Aborted when the process shuts down. */
  signal: AbortSignal;
  /** Event notifier settings; the development defaults when absent. */
  eventNotifier?: EventNotifierSettings;
}

/**
 * Job processors by name. Each feature contributes its own (transaction sending and monitoring, event scanning,
 * webhook delivery); what enqueues which job lives with the feature.
 */
export function createTaskList(deps: WorkerDeps): TaskList {
  return {
    ...eventNotifierTasks(deps),
    ...transactionTasks(deps),
  };
}
