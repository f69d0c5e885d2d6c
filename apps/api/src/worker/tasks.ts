import type { TaskList } from 'graphile-worker';

/**
 * Job processors by name. The transaction sender, receipt monitor, event scanner and webhook delivery
 * register here; queue definitions (what enqueues which job) live with the features that use them.
 */
export function createTaskList(): TaskList {
  return {};
}
