import type { TaskList } from 'graphile-worker';
import { monitorTransactions } from '#api/transactions/monitorTransactions.ts';
import { MONITOR_TASK, requeueUnfinished, SEND_TASK, type WalletNetwork } from '#api/transactions/queue.ts';
import { sendTransactions } from '#api/transactions/sendTransactions.ts';
import { DEFAULT_TRANSACTION_SETTINGS, type TransactionSettings } from '#api/transactions/settings.ts';
import type { WorkerDeps } from './tasks.ts';

/**
 * The processors of the transaction pipeline. Building them also re-queues the work of wallets with unfinished
 * transactions, so that a worker that starts after a crash finishes what the dead one left.
 */
export function transactionTasks(deps: WorkerDeps, overrides: Partial<TransactionSettings> = {}): TaskList {
  const settings: TransactionSettings = { ...DEFAULT_TRANSACTION_SETTINGS, ...overrides };
  requeueUnfinished(deps.db).catch((error) => {
    if (!deps.signal.aborted) console.error(`[worker] could not re-queue unfinished transactions: ${error}`);
  });
  return {
    [SEND_TASK]: (payload) => sendTransactions(deps, settings, payload as WalletNetwork),
    [MONITOR_TASK]: (payload) => monitorTransactions(deps, settings, payload as WalletNetwork),
  };
}
