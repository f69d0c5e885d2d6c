// The mixed workload of the reliability checks: projects with a deployed Counter, its `increment` activated and a
// subscription on its `Incremented` event delivering to a real HTTP receiver on loopback; then executions at a
// fixed rate spread over every API process.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { COUNTER_FORMATTED_ABI, deployCounter, incrementsSubscription } from '@mountain/testkit/testContract.ts';
import type { Address } from 'viem';
import type { Cluster } from './cluster.ts';

const PREFIX = '/public-api/v3';

export interface WorkloadProject {
  projectId: number;
  apiKey: string;
  counter: Address;
  wallet: Address;
  contractId: number;
  functionId: number;
  subscriptionId: string;
  initialBlock: number;
}

/** One API call; `base` is a process's URL. Throws on connection errors and timeouts. */
export async function call(
  base: string,
  apiKey: string,
  method: 'GET' | 'POST',
  op: string,
  body?: object,
  timeoutMs = 15_000,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${PREFIX}${op}`, {
    method,
    headers: { 'x-api-key': apiKey, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { status: res.status, body: parsed };
}

async function expectStatus(
  what: string,
  answer: Promise<{ status: number; body: any }>,
  status: number,
): Promise<{ status: number; body: any }> {
  const res = await answer;
  if (res.status !== status) throw new Error(`${what}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
  return res;
}

/** A project with its own Counter, `increment` activated and a subscription on its events to `webhookUrl`. */
export async function setUpProject(
  cluster: Cluster,
  name: string,
  webhookUrl: string,
  webhookMaxRetries = 20,
): Promise<WorkloadProject> {
  const base = cluster.apis[0]?.url as string;
  const { projectId, apiKey } = await cluster.createProject(name);
  const counter = await deployCounter(cluster.anvilUrl);
  const imported = await expectStatus(
    'import-contract',
    call(base, apiKey, 'POST', '/contract/import-contract', {
      networkId: 1337,
      address: counter,
      formattedAbi: COUNTER_FORMATTED_ABI,
    }),
    201,
  );
  const contractId = imported.body.contract.id as number;
  const activated = await expectStatus(
    'activate-contract-function',
    call(base, apiKey, 'POST', '/contract/activate-contract-function', {
      contractId,
      formattedAbiFunction: 'function increment(uint256 amount)',
    }),
    201,
  );
  const head = await blockNumber(cluster.anvilUrl);
  const subscription = await expectStatus(
    'create-subscription',
    call(
      base,
      apiKey,
      'POST',
      '/event-notifier/create-subscription',
      incrementsSubscription(counter, {
        subscriptionName: `${name} increments`,
        initialBlockNumber: head,
        webhookURL: webhookUrl,
        webhookMaxRetries,
      }),
    ),
    201,
  );
  const detail = await expectStatus(
    'get-project-detail',
    call(base, apiKey, 'GET', '/project/get-project-detail'),
    200,
  );
  return {
    projectId,
    apiKey,
    counter,
    wallet: detail.body.data.mSystemWalletTestnet.address,
    contractId,
    functionId: activated.body.contractActivatedFunction.id,
    subscriptionId: subscription.body.eventNotifierSubscription.id,
    initialBlock: head,
  };
}

export async function rpc<T = unknown>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

export async function blockNumber(url: string): Promise<number> {
  return Number(await rpc<string>(url, 'eth_blockNumber'));
}

/** What an execution load saw, by outcome. */
export interface ExecutionTally {
  sent: number;
  /** 2xx answers: id → project. */
  accepted: Map<string, number>;
  status4xx: number;
  status5xx: number;
  connectionErrors: number;
  latenciesMs: number[];
  /** Answers by HTTP status, with the error code for errors (e.g. `503 SERVICE_UNAVAILABLE`); requests that got no
   * answer by their error (`no answer: ECONNRESET`, `no answer: TimeoutError` after 15 s). */
  statuses: Record<string, number>;
  /** The first message of each status that is no 2xx (the answer's `message`, or the error's), to say why. */
  firstMessages: Record<string, string>;
}

/** The tally's answers by status, each refused status with its first message: `503 CHAIN_UNAVAILABLE ×2 (The RPC…)`. */
export function describeAnswers(tally: ExecutionTally): string {
  return Object.entries(tally.statuses)
    .map(([status, count]) => {
      const message = tally.firstMessages[status];
      return `${status} ×${count}${message === undefined ? '' : ` (first: ${message})`}`;
    })
    .join(', ');
}

/**
 * execute-transaction at `rate` per second for `durationMs` (or until `signal` aborts), round-robin over the API
 * processes that are running and the projects, each request with its own idempotency key. At most `maxInFlight`
 * requests wait at once; beyond that a tick is skipped (counted as not sent).
 */
export async function runExecutions(
  cluster: Cluster,
  projects: WorkloadProject[],
  options: { rate: number; durationMs: number; signal?: AbortSignal; maxInFlight?: number },
): Promise<ExecutionTally> {
  const tally: ExecutionTally = {
    sent: 0,
    accepted: new Map(),
    status4xx: 0,
    status5xx: 0,
    connectionErrors: 0,
    latenciesMs: [],
    statuses: {},
    firstMessages: {},
  };
  const maxInFlight = options.maxInFlight ?? 200;
  const inFlight = new Set<Promise<void>>();
  const started = Date.now();
  const interval = 1000 / options.rate;
  let n = 0;
  while (Date.now() - started < options.durationMs && !options.signal?.aborted) {
    const due = started + n * interval;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const i = n++;
    if (inFlight.size >= maxInFlight) continue;
    const apis = cluster.apis.filter((p) => p.running());
    const api = apis[i % Math.max(1, apis.length)] ?? cluster.apis[0];
    const project = projects[i % projects.length] as WorkloadProject;
    tally.sent++;
    const t0 = performance.now();
    const request = call(api?.url as string, project.apiKey, 'POST', '/transaction/execute-transaction', {
      contractActivatedFunctionId: project.functionId,
      functionArgs: [String((i % 1000) + 1)],
      idempotencyKey: randomUUID(),
    }).then(
      (res) => {
        tally.latenciesMs.push(performance.now() - t0);
        const key = res.status >= 400 ? `${res.status} ${res.body?.code ?? ''}`.trim() : String(res.status);
        tally.statuses[key] = (tally.statuses[key] ?? 0) + 1;
        if (res.status >= 400) tally.firstMessages[key] ??= String(res.body?.message ?? '');
        if (res.status >= 200 && res.status < 300) tally.accepted.set(res.body.transaction.id, project.projectId);
        else if (res.status >= 500) tally.status5xx++;
        else tally.status4xx++;
      },
      (error: unknown) => {
        tally.connectionErrors++;
        const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
        const key = `no answer: ${cause}`;
        tally.statuses[key] = (tally.statuses[key] ?? 0) + 1;
        tally.firstMessages[key] ??= (error as Error).message;
      },
    );
    const tracked = request.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
  }
  await Promise.all(inFlight);
  return tally;
}

/** One webhook the receiver got. */
export interface ReceivedWebhook {
  webhookId: string;
  recordId: string | undefined;
  /** The status it was answered with; undefined when it was held (a hang) and never answered. */
  answered: number | undefined;
  /** When it arrived (ms since the epoch). */
  at: number;
}

/**
 * A webhook receiver on loopback that answers 200, at once or after a set delay, and can hang: while hanging,
 * requests are held unanswered (the sender's timeout gives up on them). Keeps every delivery's `webhook-id` and the
 * record id of its body.
 */
export async function startWebhookReceiver() {
  const received: ReceivedWebhook[] = [];
  let hangingUntil = 0;
  let slowMs = 0;
  const held = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let recordId: string | undefined;
      try {
        recordId = JSON.parse(Buffer.concat(chunks).toString('utf8'))?.data?.recordId;
      } catch {
        recordId = undefined;
      }
      const entry: ReceivedWebhook = {
        webhookId: String(req.headers['webhook-id']),
        recordId,
        answered: undefined,
        at: Date.now(),
      };
      received.push(entry);
      if (Date.now() < hangingUntil) {
        held.add(res);
        res.once('close', () => held.delete(res));
        return;
      }
      const answer = () => {
        entry.answered = 200;
        res.writeHead(200).end();
      };
      if (slowMs > 0) setTimeout(answer, slowMs);
      else answer();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    /** Holds every request unanswered for `ms`. */
    hang(ms: number) {
      hangingUntil = Date.now() + ms;
    },
    /** Answers each request `ms` after it arrived (0: at once), as a slow receiver does. */
    answerAfter(ms: number) {
      slowMs = ms;
    },
    /** webhook-ids answered 2xx at least once. */
    delivered(): Set<string> {
      return new Set(received.filter((r) => r.answered === 200).map((r) => r.webhookId));
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;
