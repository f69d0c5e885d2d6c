// Spec-driven fuzzing of the Public API: requests generated from the committed OpenAPI document (each body
// property's and query parameter's schema decides its mutations), sent over real HTTP, and judged by the document
// (what is valid) and by the rules every answer must keep: no 5xx, a 4xx in the error shape for invalid input,
// every answer as documented, nothing written by a refused request. Used by `npm run fuzz` (scripts/fuzz.ts) and
// test/fuzz.test.ts; the generators are in the other files of this folder.
import type { IntervalHistogram } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { sendRaw } from '@mountain/testkit/rawHttp.ts';
import { type FuzzCase, generateCases } from './cases.ts';
import type { Operation } from './document.ts';
import type { Kind } from './draft.ts';
import type { FuzzEnvironment } from './environment.ts';

export interface Failure {
  operationId: string;
  what: string;
  kind: Kind;
  problem: string;
  request: string;
  status?: number;
  answer?: string;
}

export interface OperationResult {
  operationId: string;
  cases: number;
  byKind: Record<Kind, number>;
  /** Answers by status class. */
  answers: Record<'2xx' | '4xx' | 'other', number>;
  /** Realistic valid requests that got a 2xx. */
  validSucceeded: number;
  /** JSON-RPC requests sent to the chain while serving this operation's cases (never for invalid ones). */
  chainCalls: number;
  /** With an event-loop delay histogram: the longest the loop was blocked while one request was served, and by which. */
  blocked?: { ms: number; what: string };
  failures: Failure[];
}

/** Validation-level refusals: a request the document accepts must never get one of these. */
const VALIDATION_CODES = new Set(['VALIDATION_FAILED', 'INVALID_JSON', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE']);

function summary(c: FuzzCase): string {
  const body = c.body ? ` body ${c.body.length} B: ${c.body.toString('utf8').slice(0, 120)}` : '';
  return `${c.method} ${c.target.slice(0, 160)}${body}`;
}

/** Sends each case in turn and checks its answer; the database is compared before and after every refusal. */
export async function runOperation(
  env: FuzzEnvironment,
  op: Operation,
  options: {
    seed: number;
    runs: number;
    /**
     * An enabled monitorEventLoopDelay of the process the server runs in: each request's delay is measured. A
     * request whose delay passes `recheckAboveMs` is sent again and keeps the lower of its two figures, so that a
     * pause of the machine (other processes on its cores) is not taken for the request's own work.
     */
    eventLoopDelay?: { histogram: IntervalHistogram; recheckAboveMs: number };
  },
): Promise<OperationResult> {
  const cases = generateCases(op, {
    seed: options.seed,
    runs: options.runs,
    fixtures: env.fixtures,
    operationFixtures: env.operationFixtures[op.operationId],
    credentials: env.credentials,
    bodyLimit: env.h.deps.bodyLimit,
  });
  const result: OperationResult = {
    operationId: op.operationId,
    cases: cases.length,
    byKind: { invalid: 0, edge: 0, valid: 0 },
    answers: { '2xx': 0, '4xx': 0, other: 0 },
    validSucceeded: 0,
    chainCalls: 0,
    failures: [],
  };
  const chainCallsAtStart = env.chainCalls();
  let before = await env.snapshot();
  for (const c of cases) {
    result.byKind[c.kind]++;
    const fail = (problem: string, status?: number, answer?: string) =>
      result.failures.push({
        operationId: op.operationId,
        what: c.what,
        kind: c.kind,
        problem,
        request: summary(c),
        ...(status !== undefined ? { status } : {}),
        ...(answer !== undefined ? { answer: answer.slice(0, 300) } : {}),
      });
    const chainCallsBefore = env.chainCalls();
    let response: Awaited<ReturnType<typeof sendRaw>>;
    const delay = options.eventLoopDelay?.histogram;
    delay?.reset();
    try {
      response = await sendRaw(env.port, c);
    } catch (error) {
      fail(`no answer: ${(error as Error).message}`);
      before = await env.snapshot();
      continue;
    }
    let blockedMs = delay ? await delayed(delay) : 0;
    const { status } = response;
    const text = response.body.toString('utf8');
    result.answers[status >= 200 && status < 300 ? '2xx' : status >= 400 && status < 500 ? '4xx' : 'other']++;
    let body: { code?: string; details?: { field: string }[] } | undefined;
    const hasBody = c.method !== 'HEAD' && status !== 204 && status !== 304;
    if (hasBody) {
      try {
        body = JSON.parse(text);
      } catch {
        fail('answer is not JSON', status, text);
        before = await env.snapshot();
        continue;
      }
    }
    if (status >= 500) fail('5xx', status, text);
    else if (c.kind === 'invalid' && (status < 400 || status >= 500)) fail('invalid request accepted', status, text);
    else if (c.kind === 'valid' && status >= 400 && VALIDATION_CODES.has(body?.code ?? ''))
      fail('valid request refused by validation', status, text);
    if (hasBody) {
      const routeNotFound = status === 404 && body?.code === 'ROUTE_NOT_FOUND';
      const ownRoute =
        !routeNotFound && (c.method === op.method || c.method === 'HEAD') && status !== 413 && status !== 415;
      try {
        if (status >= 400) env.h.validator.assertError(body);
        if (ownRoute && c.method !== 'HEAD') env.h.validator.assertResponse(op.operationId, status, body);
      } catch (error) {
        fail((error as Error).message.split('\n')[0] as string, status, text);
      }
      if (c.fields && status === 400 && body?.code === 'VALIDATION_FAILED') {
        const named = (body.details ?? []).map((d) => d.field);
        const expected = c.fields;
        // `request`: the HTTP parser refused the whole request (a URL over 16 KB) before any field was read.
        const ok = named.some(
          (n) =>
            n === 'request' ||
            expected.some((f) => n === f || n.startsWith(`${f}.`) || n.startsWith(`${f}[`) || f.startsWith(`${n}.`)),
        );
        if (!ok) fail(`400 names ${JSON.stringify(named)}, not ${expected.join(' or ')}`, status, text);
      }
    }
    if (c.kind === 'invalid' && env.chainCalls() !== chainCallsBefore)
      fail('invalid request reached the chain', status, text);
    if (c.kind === 'valid' && status >= 200 && status < 300) result.validSucceeded++;
    const after = await env.snapshot();
    if (status >= 400 || c.kind === 'invalid') {
      const changed = Object.keys(after).filter((t) => after[t] !== before[t]);
      if (changed.length > 0) fail(`refused request wrote to ${changed.join(', ')}`, status, text);
    }
    before = after;
    if (delay && blockedMs > (options.eventLoopDelay?.recheckAboveMs ?? Infinity)) {
      delay.reset();
      await sendRaw(env.port, c).catch(() => undefined);
      blockedMs = Math.min(blockedMs, await delayed(delay));
      before = await env.snapshot();
    }
    if (delay && blockedMs > (result.blocked?.ms ?? -1)) result.blocked = { ms: blockedMs, what: summary(c) };
  }
  result.chainCalls = env.chainCalls() - chainCallsAtStart;
  return result;
}

/** The longest delay of the event loop since the histogram was reset, in ms, once its timer had a chance to fire. */
async function delayed(histogram: IntervalHistogram): Promise<number> {
  // The histogram's timer, held up by a request, fires once the loop is free again.
  await sleep(2);
  return histogram.max / 1e6;
}

/** `/healthz` and `/readyz` answer 200 over HTTP. */
export async function checkHealth(env: FuzzEnvironment): Promise<string[]> {
  const problems: string[] = [];
  for (const path of ['/healthz', '/readyz']) {
    const res = await sendRaw(env.port, { method: 'GET', target: path, headers: [] });
    if (res.status !== 200) problems.push(`${path} answered ${res.status}: ${res.body.toString('utf8')}`);
  }
  return problems;
}
