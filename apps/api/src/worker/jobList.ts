import { deliverJob } from '#api/eventNotifier/delivery/jobs.ts';
import { scanJob } from '#api/eventNotifier/scanning/jobs.ts';
import type { AnyJob } from '#api/jobs/defineJob.ts';
import { monitorJob, sendJob } from '#api/transactions/jobs.ts';
import { endpointDeliverJob, projectDeliverJob } from '#api/webhooks/delivery/jobs.ts';
import { purgeLogJob } from '#api/webhooks/log/jobs.ts';

/** Every job of the platform; each feature defines its own next to its code. The worker adds the sweep. */
export const JOBS: readonly AnyJob[] = [
  sendJob,
  monitorJob,
  scanJob,
  deliverJob,
  projectDeliverJob,
  endpointDeliverJob,
  purgeLogJob,
];
