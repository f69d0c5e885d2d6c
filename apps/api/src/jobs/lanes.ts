import { type Env, parseInteger } from '#api/config/parse.ts';

/**
 * The worker's lanes. Each kind of work runs in a graphile-worker runner of its own, with its own concurrency, so
 * that no kind can take another's slots: a backfill or a receiver that hangs fills the scanning or delivering lane,
 * and transactions are still sent and watched at once. `upkeep` runs the sweep.
 */
export const JOB_LANES = ['sending', 'monitoring', 'scanning', 'delivering', 'upkeep'] as const;
export type JobLane = (typeof JOB_LANES)[number];

/** Jobs each lane runs at once in one worker process (WORKER_CONCURRENCY_<LANE>; the sweep needs one). */
export type LaneConcurrency = Readonly<Record<JobLane, number>>;

export const DEFAULT_LANE_CONCURRENCY: LaneConcurrency = Object.freeze({
  sending: 8,
  monitoring: 8,
  scanning: 4,
  delivering: 8,
  upkeep: 1,
});

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
