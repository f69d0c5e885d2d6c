// Load and observation on the chain lab: the head as a watcher sees it (when each height first appeared), and
// executions offered at a steady rate, open loop, each answer kept with the head at that moment.
import type { LabChain } from '@mountain/testkit/lab/chain.ts';
import { type Execution, type LabPlatform, type LabProject, statusCounts, until } from './labPlatform.ts';

export interface HeadWatcher {
  /** The newest head seen. */
  current(): number;
  /** performance.now() when the height was first seen (undefined: not yet). */
  firstSeen(height: number): number | undefined;
  stop(): void;
}

/** Polls the chain's head every `everyMs` straight from the node (not through a provider proxy). */
export function watchHeads(chain: LabChain, everyMs = 20): HeadWatcher {
  const seen = new Map<number, number>();
  let head = -1;
  let stopped = false;
  const loop = async () => {
    while (!stopped) {
      try {
        const h = Number(await chain.head());
        if (!seen.has(h)) seen.set(h, performance.now());
        head = h;
      } catch {
        // the node restarts or is busy: the next poll tells
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  };
  void loop();
  return {
    current: () => head,
    firstSeen: (height) => seen.get(height),
    stop() {
      stopped = true;
    },
  };
}

/** An accepted execution: its id, its project, when it was answered and the head then (-1: not watched). */
export interface Accepted {
  id: string;
  projectId: number;
  answeredAt: number;
  headAtAnswer: number;
  /** A native transfer of this wei to the project's payee (undefined: an increment). */
  value?: bigint;
}

export interface OfferTally {
  offered: number;
  accepted: Accepted[];
  /** Answers other than 201, by `<status> <code>`; `skipped` counts ticks dropped while too many waited. */
  refused: Record<string, number>;
}

/**
 * Offers `increment` executions at `rate` per second, open loop (one every 1/rate s, whatever the answers), round
 * robin over `projects`, until `durationMs` has passed or `signal` aborts. With `transfers`, every `every`-th offer
 * to a project that has a payee is a native transfer of `value` wei to it instead. At most `maxWaiting` answers are
 * awaited at once; a tick past that is skipped (counted).
 */
export async function offerSteadily(
  platform: LabPlatform,
  projects: LabProject[],
  heads: HeadWatcher | undefined,
  options: {
    rate: number;
    durationMs: number;
    signal?: AbortSignal;
    maxWaiting?: number;
    transfers?: { every: number; value: bigint };
  },
): Promise<OfferTally> {
  const tally: OfferTally = { offered: 0, accepted: [], refused: {} };
  const maxWaiting = options.maxWaiting ?? 500;
  const waiting = new Set<Promise<void>>();
  const count = (key: string) => {
    tally.refused[key] = (tally.refused[key] ?? 0) + 1;
  };
  const started = performance.now();
  const interval = 1000 / options.rate;
  for (let n = 0; performance.now() - started < options.durationMs && !options.signal?.aborted; n++) {
    const wait = started + n * interval - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    if (waiting.size >= maxWaiting) {
      count('skipped');
      continue;
    }
    const project = projects[n % projects.length] as LabProject;
    tally.offered++;
    const transfers = options.transfers;
    const round = Math.floor(n / projects.length);
    const value =
      transfers && project.payee && round % transfers.every === transfers.every - 1 ? transfers.value : undefined;
    const request: Promise<void> = platform.execute(project, value).then(
      (answer: Execution) => {
        if (answer.id) {
          const headAtAnswer = heads?.current() ?? -1;
          tally.accepted.push({
            id: answer.id,
            projectId: project.projectId,
            answeredAt: answer.answeredAt,
            headAtAnswer,
            ...(value === undefined ? {} : { value }),
          });
        } else count(`${answer.status} ${answer.code ?? ''}`.trim());
      },
      (error: Error) => count(`error ${error.message.slice(0, 60)}`),
    );
    const tracked = request.finally(() => waiting.delete(tracked));
    waiting.add(tracked);
  }
  await Promise.all(waiting);
  return tally;
}

/** `count` executions, 50 at a time; their ids. */
export async function acceptMany(platform: LabPlatform, project: LabProject, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 50) {
    const answers = await Promise.all(Array.from({ length: Math.min(50, count - i) }, () => platform.execute(project)));
    for (const a of answers) {
      if (!a.id) throw new Error(`execute-transaction answered ${a.status} ${a.code ?? ''}`);
      ids.push(a.id);
    }
  }
  return ids;
}

/** Waits until every one of `ids` is mined (bounded); says so if not. */
export async function settle(platform: LabPlatform, project: LabProject, ids: string[], timeoutMs: number) {
  const done = await until(async () => {
    const { rows } = await platform.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM transactions WHERE id = ANY($1::uuid[]) AND status = ANY($2)',
      [ids, ['succeeded', 'reverted']],
    );
    return rows[0]?.n === ids.length;
  }, timeoutMs);
  if (!done) {
    const counts = await statusCounts(platform.db, [project.projectId]);
    console.log(`  ✖ not every transaction was mined within ${timeoutMs / 1000} s: ${JSON.stringify(counts)}`);
  }
}
