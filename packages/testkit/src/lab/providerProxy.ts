import type { Hex } from 'viem';
import { type JsonRpcAnswer, type JsonRpcCall, rpcCall } from '../jsonRpc.ts';
import { freePort } from '../ports.ts';
import { type Interception, type RequestPlan, startJsonRpcProxy } from '../rpcProxy.ts';
import { LabError, rejectUnknownOptions } from './errors.ts';
import { DEFAULT_CAPS } from './getLogsCaps.ts';
import { lagInterception } from './lag.ts';
import { type PoolContent, type PoolEntry, readPool } from './pool.ts';
import { GET_LOGS_REFUSED, RATE_LIMITED, type Refusal } from './providerMessages.ts';
import {
  judgeRawTransaction,
  resolveTxpoolOptions,
  type TxpoolFrontOptions,
  type TxpoolRefusalKind,
} from './txpoolFront.ts';

export interface ProviderProxyOptions {
  /** Loopback port; a free one unless given. */
  port?: number;
  /** Every request waits this long before it is answered, plus up to `jitterMs` more. */
  latency?: { ms: number; jitterMs?: number };
  /** Calls per second (each call of a batch counts) past which whole requests are refused with HTTP 429. */
  rateLimit?: { requestsPerSecond: number; burst?: number; style?: 'alchemy' | 'infura' };
  /**
   * eth_getLogs caps, refused in the words of `style`. Alchemy (default caps 2,000 blocks / 10,000 logs) refuses a
   * request over both; Infura (10,000 / 10,000) over either; QuickNode (10,000 blocks) has a range cap only.
   */
  getLogs?: { style: 'alchemy' | 'infura' | 'quicknode'; maxBlockRange?: number; maxResults?: number };
  /** Judge eth_sendRawTransaction as geth's pool does (`true`: geth's defaults). */
  txpool?: TxpoolFrontOptions | true;
  /** A load-balanced node `blocks` behind answers a request with this probability (0 to 1, default 1). */
  lag?: { blocks: number; probability?: number };
}

const OPTIONS = ['port', 'latency', 'rateLimit', 'getLogs', 'txpool', 'lag'] as const;

export type RefusalKind = 'rateLimited' | 'getLogsRange' | 'getLogsResults' | TxpoolRefusalKind;

export interface ProviderStats {
  /** Calls answered (by the node or, for a lagging node, by the proxy), per method. */
  served: Record<string, number>;
  /** Calls refused, per method. */
  refused: Record<string, number>;
  /** Calls refused, per reason. */
  refusals: Partial<Record<RefusalKind, number>>;
  /** Requests answered by the lagging node. */
  lagged: number;
}

function validate(options: ProviderProxyOptions) {
  rejectUnknownOptions('startProviderProxy', options, OPTIONS);
  const { latency, rateLimit, getLogs, lag } = options;
  if (latency) rejectUnknownOptions('latency', latency, ['ms', 'jitterMs']);
  if (rateLimit) {
    rejectUnknownOptions('rateLimit', rateLimit, ['requestsPerSecond', 'burst', 'style']);
    if (!(rateLimit.requestsPerSecond > 0)) throw new LabError('rateLimit.requestsPerSecond must be > 0');
  }
  if (getLogs) {
    rejectUnknownOptions('getLogs', getLogs, ['style', 'maxBlockRange', 'maxResults']);
    if (!(getLogs.style in DEFAULT_CAPS)) throw new LabError(`getLogs.style ${getLogs.style} is not one the lab knows`);
    if (getLogs.style === 'quicknode' && getLogs.maxResults !== undefined) {
      throw new LabError('getLogs: QuickNode refuses for the block range only; maxResults does not apply');
    }
  }
  if (options.txpool) resolveTxpoolOptions(options.txpool);
  if (lag) {
    rejectUnknownOptions('lag', lag, ['blocks', 'probability']);
    if (!Number.isSafeInteger(lag.blocks) || lag.blocks < 1)
      throw new LabError('lag.blocks must be a positive integer');
  }
}

/**
 * A JSON-RPC proxy on loopback in front of a lab chain that behaves as a hosted provider does: latency, a request
 * rate past which it answers 429 with `Retry-After`, eth_getLogs caps, a geth-like pool in front of
 * eth_sendRawTransaction, and a load-balanced node that lags behind. Each is off unless configured; `settings` can be
 * changed while it runs. Every message comes from `providerMessages.ts`.
 */
export async function startProviderProxy(node: string, options: ProviderProxyOptions = {}) {
  validate(options);
  const { port, ...initial } = options;
  const settings: Omit<ProviderProxyOptions, 'port'> = initial;
  const stats: ProviderStats = { served: {}, refused: {}, refusals: {}, lagged: 0 };
  const count = (table: Record<string, number>, key: string, n = 1) => {
    table[key] = (table[key] ?? 0) + n;
  };
  const refuse = (call: JsonRpcCall, kind: RefusalKind, refusal: Refusal): Interception => {
    count(stats.refused, call.method);
    count(stats.refusals, kind);
    return { answer: { id: call.id, error: refusal.error }, httpStatus: refusal.httpStatus };
  };

  // Token bucket over calls: `burst` calls at once (default: one second's worth), refilled at the rate.
  let tokens = Number.NaN;
  let refilledAt = Date.now();
  function rateLimited(calls: JsonRpcCall[]): RequestPlan['refuse'] {
    const limit = settings.rateLimit;
    if (!limit) {
      tokens = Number.NaN; // a limit set again later starts full
      return undefined;
    }
    const capacity = limit.burst ?? limit.requestsPerSecond;
    const now = Date.now();
    tokens = Number.isNaN(tokens)
      ? capacity
      : Math.min(capacity, tokens + ((now - refilledAt) / 1000) * limit.requestsPerSecond);
    refilledAt = now;
    if (tokens >= calls.length) {
      tokens -= calls.length;
      return undefined;
    }
    const retryAfter = Math.max(1, Math.ceil((calls.length - tokens) / limit.requestsPerSecond));
    const refusal =
      limit.style === 'infura'
        ? RATE_LIMITED.infura(limit.requestsPerSecond + calls.length, limit.requestsPerSecond, retryAfter)
        : RATE_LIMITED.alchemy();
    for (const call of calls) count(stats.refused, call.method);
    count(stats.refusals, 'rateLimited', calls.length);
    const bodies = calls.map((call) => ({ jsonrpc: '2.0', id: call.id ?? null, error: refusal.error }));
    return {
      status: 429,
      headers: { 'retry-after': String(retryAfter) },
      body: calls.length === 1 ? bodies[0] : bodies,
    };
  }

  let lagUntil = 0;
  let lagWindowBlocks = 0;
  function lagBlocks(): number | undefined {
    if (Date.now() < lagUntil) return lagWindowBlocks;
    const lag = settings.lag;
    if (lag && Math.random() < (lag.probability ?? 1)) return lag.blocks;
    return undefined;
  }

  /** eth_getLogs against the caps: refused now for its range, or checked once the node has answered for its size. */
  async function capLogs(call: JsonRpcCall, head: () => Promise<bigint>): Promise<Interception | undefined> {
    const caps = settings.getLogs;
    if (call.method !== 'eth_getLogs' || !caps) return undefined;
    const maxBlockRange = caps.maxBlockRange ?? DEFAULT_CAPS[caps.style].maxBlockRange;
    const maxResults = caps.maxResults ?? DEFAULT_CAPS[caps.style].maxResults;
    const filter = (call.params?.[0] ?? {}) as { fromBlock?: string; toBlock?: string; blockHash?: string };
    if (filter.blockHash) return undefined;
    const at = async (tag: string | undefined) =>
      tag === undefined || !tag.startsWith('0x') ? (tag === 'earliest' ? 0n : await head()) : BigInt(tag);
    const from = await at(filter.fromBlock);
    const to = await at(filter.toBlock);
    const range = to - from + 1n;
    if (range > BigInt(maxBlockRange)) {
      if (caps.style === 'quicknode') return refuse(call, 'getLogsRange', GET_LOGS_REFUSED.quicknode(maxBlockRange));
      if (caps.style === 'infura')
        return refuse(call, 'getLogsRange', GET_LOGS_REFUSED.infuraRange(range, maxBlockRange));
    } else if (caps.style === 'alchemy') {
      return undefined; // Alchemy: within the range cap, any number of logs
    }
    if (maxResults === undefined) return undefined;
    return {
      rewrite(answer: JsonRpcAnswer) {
        const logs = answer.result as { blockNumber: Hex }[] | undefined;
        if (!Array.isArray(logs) || logs.length <= maxResults) return answer;
        // The widest range from `from` that stays within the cap: up to the block before the first log past it.
        const firstOver = BigInt((logs[maxResults] as { blockNumber: Hex }).blockNumber);
        const within = firstOver - 1n < from ? from : firstOver - 1n;
        // Alchemy's suggestion may use either of its rules: the range cap, or the log cap.
        const rangeCapEnd = from + BigInt(maxBlockRange) - 1n;
        const refusal =
          caps.style === 'alchemy'
            ? GET_LOGS_REFUSED.alchemy(maxBlockRange, maxResults, [from, within > rangeCapEnd ? within : rangeCapEnd])
            : GET_LOGS_REFUSED.infuraResults(maxResults, [from, within]);
        count(stats.served, call.method, -1);
        const refused = refuse(call, 'getLogsResults', refusal);
        return refused.answer as JsonRpcAnswer;
      },
    };
  }

  async function plan(calls: JsonRpcCall[]): Promise<RequestPlan> {
    const latency = settings.latency;
    const delayMs = latency ? latency.ms + Math.random() * (latency.jitterMs ?? 0) : 0;
    const refused = rateLimited(calls);
    if (refused) return { delayMs, refuse: refused };
    const behind = lagBlocks();
    let realHead: Promise<bigint> | undefined;
    const head = () => {
      realHead ??= rpcCall<Hex>(node, 'eth_blockNumber').then(BigInt);
      return realHead;
    };
    const seenHead = async () => {
      const h = await head();
      return behind === undefined ? h : h > BigInt(behind) ? h - BigInt(behind) : 0n;
    };
    if (behind !== undefined) stats.lagged++;
    const txpool = settings.txpool ? resolveTxpoolOptions(settings.txpool) : undefined;
    const acceptedHere: PoolEntry[] = [];
    // The node's pool, read once for the request's transactions (a sender's round is one batch of hundreds): those
    // accepted before in the same batch are `acceptedHere`, and each judgement reads its sender's mined nonce afresh.
    let pool: Promise<PoolContent> | undefined;
    const pooled = () => {
      pool ??= readPool(node);
      return pool;
    };
    return {
      delayMs,
      async intercept(call) {
        if (call.method === 'eth_sendRawTransaction' && txpool) {
          const verdict = await judgeRawTransaction(node, call.params?.[0] as Hex, txpool, acceptedHere, pooled);
          if (verdict && 'refused' in verdict) return refuse(call, verdict.refused.kind, verdict.refused.refusal);
          if (verdict) acceptedHere.push(verdict.accepted);
        }
        const lagged = behind === undefined ? undefined : await lagInterception(node, call, await seenHead());
        const capped = await capLogs(lagged?.forward ?? call, seenHead);
        if (capped?.answer) return capped;
        count(stats.served, call.method);
        if (lagged?.answer) return lagged;
        return compose(lagged, capped);
      },
    };
  }

  const proxy = await startJsonRpcProxy(node, port ?? (await freePort()), plan);
  return {
    ...proxy,
    settings,
    stats,
    /** For `ms`, every request is answered by a node `blocks` behind (default: `settings.lag.blocks`, else 3). */
    lagFor(ms: number, blocks = settings.lag?.blocks ?? 3) {
      lagUntil = Date.now() + ms;
      lagWindowBlocks = blocks;
    },
  };
}

/** One interception from two: the first's forwarded call, then both rewrites in order. */
function compose(first: Interception | undefined, second: Interception | undefined): Interception | undefined {
  if (!first) return second;
  if (!second) return first;
  return {
    ...(first.forward ? { forward: first.forward } : {}),
    async rewrite(answer) {
      const once = first.rewrite ? await first.rewrite(answer) : answer;
      return second.rewrite ? second.rewrite(once) : once;
    },
  };
}

export type ProviderProxy = Awaited<ReturnType<typeof startProviderProxy>>;
