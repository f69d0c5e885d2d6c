import http from 'node:http';
import type { JsonRpcAnswer, JsonRpcCall } from './jsonRpc.ts';

export interface RpcProxyOptions {
  /** eth_getLogs over more blocks than this is refused with a JSON-RPC error, as many providers do. */
  maxLogRange?: number;
  /** Delay added to each eth_getLogs answer (to make a scan slow enough to interrupt). */
  getLogsDelayMs?: number;
  /** Drop `blockTimestamp` from eth_getLogs answers, as providers that predate the field do. */
  stripLogTimestamps?: boolean;
  /** Answer `anvil_getAutomine` with this instead of asking anvil (to present anvil's stalled automine). */
  reportAutomine?: boolean;
  /**
   * Answer the next `times` calls of `method` with this JSON-RPC error instead of forwarding them (a node caught in
   * a reorg: anvil's "BlockOutOfRangeError…"); `times` counts down as they are answered.
   */
  failNext?: { method: string; times: number; error: { code: number; message: string } };
}

/** What the proxy does with one call: answer it itself, or forward it (maybe rewritten) and maybe rewrite the answer. */
export interface Interception {
  /** The proxy's own answer; the call does not reach the node. */
  answer?: JsonRpcAnswer;
  /** HTTP status of a refusal sent alone (not in a batch), for providers that refuse with one (413…). */
  httpStatus?: number;
  /** Forward this call instead of the one received. */
  forward?: JsonRpcCall;
  /** Rewrites the node's answer before it goes back. */
  rewrite?(answer: JsonRpcAnswer): JsonRpcAnswer | Promise<JsonRpcAnswer>;
}

/** How the proxy answers one HTTP request. */
export interface RequestPlan {
  /** Refuse the whole request at the HTTP level (a 429…). */
  refuse?: { status: number; headers?: Record<string, string>; body: unknown };
  /** Wait this long before answering. */
  delayMs?: number;
  /** Called for each call of the request, in order. */
  intercept?(call: JsonRpcCall): Interception | undefined | Promise<Interception | undefined>;
  /** Called once before the forwarded calls go to the node. */
  beforeForward?(forwarded: JsonRpcCall[]): Promise<void>;
}

export interface JsonRpcProxy {
  url: string;
  up(): Promise<void>;
  down(): Promise<void>;
  stall(ms: number): void;
  close(): Promise<void>;
}

/**
 * A JSON-RPC proxy on loopback in front of `target`: `plan` decides, request by request, what it answers itself and
 * what it forwards. It can also hang (`stall(ms)`: every request waits, unanswered, until then), or disappear
 * altogether (`down()` closes the port: connections are refused) and come back (`up()`).
 */
export async function startJsonRpcProxy(
  target: string,
  port: number,
  plan: (calls: JsonRpcCall[], batch: boolean) => RequestPlan | Promise<RequestPlan>,
): Promise<JsonRpcProxy> {
  let stalledUntil = 0;
  /**
   * Answers a batch: the proxy's own answers here, the others forwarded to the node as one batch, in their order (so
   * that transactions sent in nonce order reach the node in nonce order, as over a direct connection).
   */
  async function answerBatch(calls: JsonRpcCall[], requestPlan: RequestPlan) {
    const plans: (Interception | undefined)[] = [];
    for (const call of calls) plans.push(await requestPlan.intercept?.(call));
    const answers: (JsonRpcAnswer | undefined)[] = plans.map((p) => p?.answer);
    const forwardedIndexes = calls.map((_, i) => i).filter((i) => answers[i] === undefined);
    const forwarded = forwardedIndexes.map((i) => plans[i]?.forward ?? (calls[i] as JsonRpcCall));
    if (forwarded.length > 0) {
      await requestPlan.beforeForward?.(forwarded);
      const upstream = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(forwarded),
      });
      const results = (await upstream.json()) as JsonRpcAnswer[];
      let next = 0;
      for (const index of forwardedIndexes) {
        const call = calls[index] as JsonRpcCall;
        const result = results.find((r) => r.id === call.id) ?? (results[next] as JsonRpcAnswer);
        next++;
        const rewrite = plans[index]?.rewrite;
        answers[index] = rewrite ? await rewrite(result) : result;
      }
    }
    return {
      answers: answers.map((a) => ({ jsonrpc: '2.0', ...a })),
      status: plans.length === 1 && plans[0]?.answer ? (plans[0].httpStatus ?? 200) : 200,
    };
  }
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      try {
        if (Date.now() < stalledUntil) await new Promise((r) => setTimeout(r, stalledUntil - Date.now()));
        const message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        // Batches (viem may send them) are answered call by call, so each can be refused on its own.
        const batch = Array.isArray(message);
        const calls: JsonRpcCall[] = batch ? message : [message];
        const requestPlan = await plan(calls, batch);
        if (requestPlan.delayMs) await new Promise((r) => setTimeout(r, requestPlan.delayMs));
        if (requestPlan.refuse) {
          const { status, headers, body } = requestPlan.refuse;
          res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
          return;
        }
        const { answers, status } = await answerBatch(calls, requestPlan);
        res
          .writeHead(batch ? 200 : status, { 'content-type': 'application/json' })
          .end(JSON.stringify(batch ? answers : answers[0]));
      } catch {
        res.writeHead(502).end();
      }
    });
  };
  let server: http.Server | undefined;
  const up = () =>
    new Promise<void>((resolve, reject) => {
      server = http.createServer(handler);
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
  const down = () =>
    new Promise<void>((resolve) => {
      if (!server) return resolve();
      server.closeAllConnections();
      server.close(() => resolve());
      server = undefined;
    });
  await up();
  const stall = (ms: number) => {
    stalledUntil = Date.now() + ms;
  };
  return { url: `http://127.0.0.1:${port}`, up, down, stall, close: down };
}

/**
 * A JSON-RPC proxy on loopback in front of anvil that can refuse wide eth_getLogs ranges, slow them down, hang
 * (`stall(ms)`: every request waits, unanswered, until then), or disappear altogether (`down()` closes the port:
 * connections are refused) and come back (`up()`).
 */
export async function startRpcProxy(target: string, port: number, options: RpcProxyOptions = {}) {
  const settings = { ...options };
  const refused: [number, number][] = [];
  const served: [number, number][] = [];
  /** eth_getLogs requests held by `getLogsDelayMs` at once: now, and the most so far (how many reads overlapped). */
  const delayedGetLogs = { now: 0, most: 0 };
  /** The proxy's own answer to a call (a refused eth_getLogs range, a reported automine), or undefined to forward it. */
  function intercept(call: JsonRpcCall): Interception | undefined {
    const fail = settings.failNext;
    if (fail && fail.times > 0 && call.method === fail.method) {
      fail.times--;
      return { answer: { id: call.id, error: fail.error } };
    }
    if (call.method === 'anvil_getAutomine' && settings.reportAutomine !== undefined) {
      return { answer: { id: call.id, result: settings.reportAutomine } };
    }
    if (call.method === 'eth_getLogs') {
      const { fromBlock, toBlock } = call.params?.[0] as { fromBlock: string; toBlock: string };
      const range: [number, number] = [Number(fromBlock), Number(toBlock)];
      if (settings.maxLogRange !== undefined && range[1] - range[0] + 1 > settings.maxLogRange) {
        refused.push(range);
        return {
          answer: {
            id: call.id,
            error: { code: -32005, message: `query exceeds max block range ${settings.maxLogRange}` },
          },
        };
      }
      served.push(range);
    }
    if (call.method === 'eth_getLogs' && settings.stripLogTimestamps) {
      return {
        rewrite(answer) {
          if (Array.isArray(answer.result)) {
            for (const log of answer.result as Record<string, unknown>[]) delete log.blockTimestamp;
          }
          return answer;
        },
      };
    }
    return undefined;
  }
  async function beforeForward(forwarded: JsonRpcCall[]) {
    if (settings.getLogsDelayMs && forwarded.some((c) => c.method === 'eth_getLogs')) {
      delayedGetLogs.most = Math.max(delayedGetLogs.most, ++delayedGetLogs.now);
      await new Promise((r) => setTimeout(r, settings.getLogsDelayMs));
      delayedGetLogs.now--;
    }
  }
  const proxy = await startJsonRpcProxy(target, port, () => ({ intercept, beforeForward }));
  return { ...proxy, settings, refused, served, delayedGetLogs };
}
