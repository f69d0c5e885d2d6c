import { code, type Env, parseInteger, type VariableDefinition } from '#api/config/parse.ts';

/**
 * The worker's lanes. Each kind of work runs in a graphile-worker runner of its own, with its own concurrency, so
 * that no kind can take another's slots: a backfill or a receiver that hangs fills the scanning or delivering lane,
 * and transactions are still sent and watched at once. `upkeep` runs the sweep.
 */
export const JOB_LANES = ['sending', 'monitoring', 'scanning', 'delivering', 'upkeep'] as const;
export type JobLane = (typeof JOB_LANES)[number];

/** What each lane is for, as the operations guide's scaling page says it (its jobs are listed beside it). */
export const LANE_PURPOSES: Readonly<Record<JobLane, string>> = Object.freeze({
  sending:
    'Signs and broadcasts waiting transactions: one job per (wallet, network) at a time across every worker, in ' +
    'rounds of 200. More slots serve more wallets at once, not one wallet faster.',
  monitoring:
    'Watches broadcast transactions: receipts, re-sends with a higher fee, reorgs, finality. One job per (wallet, ' +
    'network) at a time.',
  scanning:
    "Reads the chains' logs for the event notifier's subscriptions and stores the records: one job per " +
    'subscription at a time, at most `MAX_CONCURRENT_SCANS_PER_PROJECT` of one project at once.',
  delivering:
    "Sends webhooks: a subscription's records, and a project's webhook endpoints (one job per project, its " +
    'endpoints side by side). Slow receivers fill this lane only.',
  upkeep:
    'The sweep, which queues again the work a killed worker left locked, and the hourly purge of the webhook log. ' +
    'One at a time; not configurable.',
});

/** Jobs each lane runs at once in one worker process (WORKER_CONCURRENCY_<LANE>; the sweep needs one). */
export type LaneConcurrency = Readonly<Record<JobLane, number>>;

export const DEFAULT_LANE_CONCURRENCY: LaneConcurrency = Object.freeze({
  sending: 8,
  monitoring: 8,
  scanning: 4,
  delivering: 8,
  upkeep: 1,
});

/** The lanes whose concurrency a deployment sets (the upkeep lane runs the sweep, one at a time). */
const TUNABLE_LANES = JOB_LANES.filter((lane) => lane !== 'upkeep');

/** The lanes' variables, as the configuration reference lists them. */
export const LANE_VARIABLES: readonly VariableDefinition[] = [
  {
    names: TUNABLE_LANES.map((lane) => `WORKER_CONCURRENCY_${lane.toUpperCase()}`),
    default: TUNABLE_LANES.map((lane) => code(DEFAULT_LANE_CONCURRENCY[lane])).join(' / '),
    meaning:
      'Jobs of each kind one worker process runs at once. Each kind has its own runner (and the sweep one more), so ' +
      'scans and deliveries, however slow, never hold up sending and monitoring transactions. A runner asks the ' +
      'database for jobs for all its slots (at once when a job is queued, else once a second): an idle worker ' +
      'process polls 5 times a second whatever these are. A job a runner took while all its slots were busy goes ' +
      'back to the queue after a second, for another worker process. A system wallet with transactions in flight ' +
      'keeps a slot of the monitoring lane (and, while it sends, one of the sending lane) busy: across the worker ' +
      'processes, give these two lanes at least as many slots as there are wallets sending at once (a pool of 32 ' +
      'wallets: 32), or the pool sends no faster than the slots let it.',
  },
];

/** WORKER_CONCURRENCY_<LANE>: the jobs each lane of a worker process runs at once (the upkeep lane's is fixed). */
export function parseLaneConcurrency(env: Env, problems: string[]): LaneConcurrency {
  const concurrency: Record<JobLane, number> = { ...DEFAULT_LANE_CONCURRENCY };
  for (const lane of JOB_LANES) {
    const name = `WORKER_CONCURRENCY_${lane.toUpperCase()}`;
    const value = env[name];
    if (value !== undefined && lane !== 'upkeep') concurrency[lane] = parseInteger(name, value, problems, 1, 1_000);
  }
  return Object.freeze(concurrency);
}
