// Child process of bench:load: sends a weighted mix of operations at a fixed overall rate, round-robin over the
// API processes, so that the load generator does not share an event loop with anything it measures. Receives its
// plan over IPC and answers with the latencies and outcomes of each operation.
import { randomUUID } from 'node:crypto';

export interface MixPlan {
  apis: string[];
  rate: number;
  seconds: number;
  /** Requests allowed to wait at once; a tick beyond that is counted as `skipped`. */
  maxInFlight: number;
  apiKey: string;
  contractId: number;
  functionId: number;
  transactionIds: string[];
  subscriptionId: string;
  /** A contract without events, for the subscriptions create-subscription makes. */
  quietContract: string;
  headBlock: number;
}

export interface OpResult {
  count: number;
  latenciesMs: number[];
  status2xx: number;
  status4xx: number;
  status5xx: number;
  connectionErrors: number;
}

/** The entry that counts ticks not sent because `maxInFlight` requests were still waiting. */
export const SKIPPED = '(not sent)';

type Request = { method: 'GET' | 'POST'; path: string; body?: object };

/** The mix: operation → weight and how to build its next request. */
function operations(plan: MixPlan): { name: string; weight: number; next: (i: number) => Request }[] {
  let toggle = 0;
  return [
    { name: 'get-project-detail', weight: 15, next: () => ({ method: 'GET', path: '/project/get-project-detail' }) },
    { name: 'get-contracts', weight: 10, next: () => ({ method: 'GET', path: '/contract' }) },
    {
      name: 'get-transactions',
      weight: 15,
      next: (i) => ({ method: 'GET', path: `/transaction/get-transactions?page=${(i % 3) + 1}&perPage=20` }),
    },
    {
      name: 'get-transaction',
      weight: 15,
      next: (i) => ({
        method: 'GET',
        path: `/transaction/get-transaction?transactionId=${plan.transactionIds[i % plan.transactionIds.length]}`,
      }),
    },
    {
      name: 'get-records',
      weight: 8,
      next: () => ({
        method: 'POST',
        path: '/event-notifier/get-records',
        body: { subscriptionId: plan.subscriptionId },
      }),
    },
    {
      name: 'get-subscriptions',
      weight: 10,
      next: () => ({ method: 'GET', path: '/event-notifier/get-subscriptions' }),
    },
    {
      name: 'execute-transaction',
      weight: 20,
      next: (i) => ({
        method: 'POST',
        path: '/transaction/execute-transaction',
        body: {
          contractActivatedFunctionId: plan.functionId,
          functionArgs: [String((i % 1000) + 1)],
          idempotencyKey: randomUUID(),
        },
      }),
    },
    {
      name: 'activate/deactivate',
      weight: 5,
      next: () => ({
        method: 'POST',
        path: toggle++ % 2 === 0 ? '/contract/deactivate-contract-function' : '/contract/activate-contract-function',
        body: { contractId: plan.contractId, formattedAbiFunction: 'function claim(uint256 id)' },
      }),
    },
    {
      name: 'create-subscription',
      weight: 2,
      next: (i) => ({
        method: 'POST',
        path: '/event-notifier/create-subscription',
        body: {
          subscriptionName: `Load ${i}`,
          networkId: 1337,
          address: plan.quietContract,
          formattedAbiEvent: 'event Incremented(address indexed by, uint256 amount, uint256 total)',
          initialBlockNumber: plan.headBlock,
          scanInterval: 60,
        },
      }),
    },
  ];
}

async function run(plan: MixPlan): Promise<Record<string, OpResult>> {
  const ops = operations(plan);
  const totalWeight = ops.reduce((s, o) => s + o.weight, 0);
  // A fixed interleaving: each operation gets its share of every `totalWeight` consecutive ticks.
  const schedule: number[] = [];
  const credits = ops.map(() => 0);
  for (let t = 0; t < totalWeight; t++) {
    ops.forEach((o, k) => {
      credits[k] = (credits[k] as number) + o.weight;
    });
    const k = credits.indexOf(Math.max(...credits));
    credits[k] = (credits[k] as number) - totalWeight;
    schedule.push(k);
  }
  const results: Record<string, OpResult> = Object.fromEntries(
    ops.map((o) => [
      o.name,
      { count: 0, latenciesMs: [], status2xx: 0, status4xx: 0, status5xx: 0, connectionErrors: 0 },
    ]),
  );
  let skipped = 0;
  const inFlight = new Set<Promise<void>>();
  const started = performance.now();
  const interval = 1000 / plan.rate;
  const end = started + plan.seconds * 1000;
  for (let n = 0; ; n++) {
    const due = started + n * interval;
    if (due >= end) break;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    if (inFlight.size >= plan.maxInFlight) {
      skipped++;
      continue;
    }
    const op = ops[schedule[n % schedule.length] as number] as (typeof ops)[number];
    const result = results[op.name] as OpResult;
    const request = op.next(result.count++);
    const base = plan.apis[n % plan.apis.length] as string;
    const t0 = performance.now();
    const p = fetch(`${base}/public-api/v3${request.path}`, {
      method: request.method,
      headers: {
        'x-api-key': plan.apiKey,
        ...(request.body ? { 'content-type': 'application/json' } : {}),
      },
      ...(request.body ? { body: JSON.stringify(request.body) } : {}),
      signal: AbortSignal.timeout(30_000),
    })
      .then(async (res) => {
        await res.arrayBuffer();
        result.latenciesMs.push(performance.now() - t0);
        if (res.status >= 500) result.status5xx++;
        else if (res.status >= 400) result.status4xx++;
        else result.status2xx++;
      })
      .catch(() => {
        result.connectionErrors++;
      })
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  }
  await Promise.all(inFlight);
  if (skipped) results[SKIPPED] = { ...emptyResult(), count: skipped };
  return results;
}

function emptyResult(): OpResult {
  return { count: 0, latenciesMs: [], status2xx: 0, status4xx: 0, status5xx: 0, connectionErrors: 0 };
}

// As the forked child (with an IPC channel to bench:load), wait for the plan; imported for its types, do nothing.
if (process.argv[1]?.endsWith('loadMix.ts') && process.send) {
  process.once('message', async (plan) => {
    const results = await run(plan as MixPlan);
    process.send?.(results, () => process.exit(0));
  });
}
