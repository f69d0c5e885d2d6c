import { createPublicKey, type KeyObject, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { AssetConfig } from './assetChains.ts';
import { ApiErrors, FireblocksApiError } from './fireblocksErrors.ts';
import { IdempotencyStore, MAX_IDEMPOTENCY_KEY, type StoredAnswer } from './idempotencyStore.ts';
import { processRsaKey } from './rsaKeys.ts';
import { type FaultSettings, SimulatorFaults } from './simulatorFaults.ts';
import { matchRoute, type RouteDefinition, type SimulatorContext } from './simulatorRoutes.ts';
import { loadState, type SimulatorStateData, saveState } from './simulatorState.ts';
import { TransactionEngine } from './transactionEngine.ts';
import { transactionRoutes } from './transactionRoutes.ts';
import { transactionView } from './transactionView.ts';
import { vaultRoutes } from './vaultRoutes.ts';
import { NonceCache, verifyApiRequest } from './verifyApiRequest.ts';
import { WebhookSender } from './webhookSender.ts';

export interface FireblocksSimulatorOptions {
  /** Fireblocks asset ids the workspace has, each an EVM chain the simulator signs for and reads. */
  assets: Record<string, AssetConfig>;
  /** Where v1 webhooks go (signed). */
  webhookUrl?: string;
  /** When webhook retries happen, in ms after the first attempt (Fireblocks' schedule, in seconds, unless told). */
  webhookRetryDelaysMs?: number[];
  /** How long a transaction stays in each status before the next, in ms (default 0). */
  delays?: Partial<Record<string, number>>;
  /** Blocks, the receipt's own counted, before COMPLETED (default 1). */
  confirmations?: number;
  /** Default false: one transaction in flight per vault account and asset, the others QUEUED. */
  parallelPerVaultAsset?: boolean;
  /** Requests per second of one API key on one endpoint; beyond it, 429. */
  rateLimit?: { perSecond: number };
  /** A JSON file keeping vault accounts, the keys' seed, nonces and transactions across restarts. */
  statePath?: string;
  port?: number;
  /** Largest request body (default 1 MiB). */
  bodyLimitBytes?: number;
  /** Largest state file (default 64 MiB); the oldest finished transactions leave it first. */
  maxStateBytes?: number;
}

export interface FireblocksSimulator {
  /** The SDK's basePath: http://127.0.0.1:<port>/v1. */
  url: string;
  /** Verifies `Fireblocks-Signature` of the webhooks. */
  webhookPublicKeyPem: string;
  createApiUser(): { apiKey: string; privateKeyPem: string };
  registerApiUser(apiKey: string, publicKeyPem: string): void;
  faults: { set(settings: FaultSettings): void; clear(): void };
  approve(txId: string): void;
  reject(txId: string): void;
  /** A speed-up: the same nonce re-signed with higher fees and sent; resolves to the new hash. */
  replaceHash(txId: string): Promise<string>;
  transactions(): ReturnType<typeof transactionView>[];
  vaultAccounts(): { id: string; name: string; address: string; assets: string[] }[];
  /** Requests received, by 'METHOD /template' (e.g. 'POST /transactions'). */
  requests: Record<string, number>;
  stop(): Promise<void>;
}

const ROUTES: RouteDefinition[] = [...vaultRoutes, ...transactionRoutes];

/** Starts a Fireblocks API simulator on 127.0.0.1 (see packages/testkit/README.md, "Fireblocks simulator"). */
export async function startFireblocksSimulator(options: FireblocksSimulatorOptions): Promise<FireblocksSimulator> {
  const bodyLimit = options.bodyLimitBytes ?? 1024 * 1024;
  const maxStateBytes = options.maxStateBytes ?? 64 * 1024 * 1024;
  const state: SimulatorStateData = loadState(options.statePath, maxStateBytes);
  const faults = new SimulatorFaults();
  const publicKeys = new Map<string, KeyObject>();
  const nonces = new NonceCache();
  const idempotency = new IdempotencyStore();
  const requests: Record<string, number> = {};
  const buckets = new Map<string, { tokens: number; at: number }>();
  const webhooks = options.webhookUrl
    ? new WebhookSender(
        options.webhookUrl,
        processRsaKey('webhook', 0).privateKey,
        'simulated-tenant',
        options.webhookRetryDelaysMs,
      )
    : undefined;
  let users = 0;
  const timers = new Set<NodeJS.Timeout>();
  let saveTimer: NodeJS.Timeout | undefined;
  let stopped = false;
  const persist = () => {
    if (!options.statePath || saveTimer || stopped) return;
    saveTimer = setTimeout(() => {
      saveTimer = undefined;
      saveState(options.statePath as string, state, maxStateBytes);
    }, 50);
  };
  const vaultName = (id: string) => state.vaults.find((v) => v.id === id)?.name ?? '';
  const engine = new TransactionEngine({
    assets: options.assets,
    delays: options.delays ?? {},
    confirmations: options.confirmations ?? 1,
    parallelPerVaultAsset: options.parallelPerVaultAsset ?? false,
    faults,
    state,
    onChange(tx, created) {
      persist();
      const data = transactionView(tx, vaultName(tx.vaultId), engine.keys.account(tx.vaultId).address);
      webhooks?.send(created ? 'TRANSACTION_CREATED' : 'TRANSACTION_STATUS_UPDATED', data);
    },
  });

  const server = http.createServer();
  const sockets = new Set<Socket>();
  const ctx: SimulatorContext = { state, engine, assets: options.assets, baseUrl: '', persist };

  server.on('connection', (socket: Socket) => {
    if (faults.current.unreachable) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  /** Token bucket of one API key on one endpoint ("rate limits … per API endpoint", "set at the API user level"). */
  const overRate = (key: string) => {
    if (!options.rateLimit) return false;
    const now = Date.now();
    const perSecond = options.rateLimit.perSecond;
    const bucket = buckets.get(key) ?? { tokens: perSecond, at: now };
    bucket.tokens = Math.min(perSecond, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
    bucket.at = now;
    buckets.set(key, bucket);
    if (bucket.tokens < 1) return true;
    bucket.tokens -= 1;
    return false;
  };

  const readBody = (req: http.IncomingMessage) =>
    new Promise<Buffer | undefined>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > bodyLimit) {
          resolve(undefined);
          req.resume();
          return;
        }
        chunks.push(chunk);
      });
      req.on('end', () => resolve(size > bodyLimit ? undefined : Buffer.concat(chunks)));
      req.on('error', reject);
    });

  const send = (res: http.ServerResponse, requestId: string, answer: StoredAnswer) => {
    if (res.destroyed || res.headersSent) return;
    const body = JSON.stringify(answer.body ?? {});
    res.writeHead(answer.status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'X-Request-ID': requestId,
      ...answer.headers,
    });
    res.end(body);
  };

  const errorAnswer = (error: unknown): StoredAnswer =>
    error instanceof FireblocksApiError
      ? { status: error.status, body: error.body() }
      : { status: 500, body: ApiErrors.internal().body() };

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (faults.current.unreachable) {
      req.socket.destroy();
      return;
    }
    const requestId = randomUUID();
    const method = req.method ?? 'GET';
    const target = req.url ?? '/';
    const url = new URL(target, 'http://127.0.0.1');
    const path = url.pathname.startsWith('/v1/') ? url.pathname.slice(3) : undefined;
    const matched = path === undefined ? undefined : matchRoute(ROUTES, method, path);
    const route = `${method} ${matched?.route.template ?? url.pathname}`;
    requests[route] = (requests[route] ?? 0) + 1;
    const rawBody = await readBody(req);
    if (!rawBody) return send(res, requestId, errorAnswer(ApiErrors.bodyTooLarge(bodyLimit)));
    const slow = faults.slowFor(route);
    if (slow) await sleep(slow);
    const limited = faults.take('rateLimited', route);
    const apiKeyHeader = req.headers['x-api-key'];
    const apiKey = Array.isArray(apiKeyHeader) ? apiKeyHeader[0] : apiKeyHeader;
    if (limited || overRate(`${apiKey ?? ''}|${route}`)) {
      const headers = limited?.retryAfterSeconds ? { 'Retry-After': String(limited.retryAfterSeconds) } : undefined;
      return send(res, requestId, { ...errorAnswer(ApiErrors.rateLimited()), headers });
    }
    let caller: string;
    try {
      caller = verifyApiRequest(
        { apiKey, authorization: req.headers.authorization, uri: target, rawBody },
        publicKeys,
        nonces,
      );
    } catch (error) {
      return send(res, requestId, errorAnswer(error));
    }
    if (!matched) return send(res, requestId, errorAnswer(ApiErrors.notFound(`${method} ${url.pathname}`)));
    let body: unknown;
    if (rawBody.length > 0 && method !== 'GET') {
      try {
        body = JSON.parse(rawBody.toString('utf8'));
      } catch {
        return send(res, requestId, errorAnswer(ApiErrors.badRequest('The body is not valid JSON')));
      }
    }
    // "You can use idempotency keys with POST requests" (API Idempotency); one workspace's keys.
    const idempotencyKey = method === 'POST' ? req.headers['idempotency-key'] : undefined;
    let settle: ((answer: StoredAnswer) => void) | undefined;
    if (typeof idempotencyKey === 'string') {
      if (idempotencyKey.length > MAX_IDEMPOTENCY_KEY) {
        const tooLong = `Idempotency-Key must be at most ${MAX_IDEMPOTENCY_KEY} characters`;
        return send(res, requestId, errorAnswer(ApiErrors.badRequest(tooLong)));
      }
      const decision = await idempotency.begin(idempotencyKey);
      if (decision.kind === 'refused') {
        return send(res, requestId, errorAnswer(ApiErrors.idempotencyAfterInternalError()));
      }
      if (decision.kind === 'replay') return send(res, requestId, decision.answer);
      settle = decision.settle;
    }
    const serverError = faults.take('serverError', route);
    let answer: StoredAnswer;
    if (serverError) {
      answer = { status: serverError.status ?? 500, body: ApiErrors.internal().body() };
    } else {
      try {
        answer = await matched.route.handle(ctx, {
          params: matched.params,
          query: url.searchParams,
          body,
          apiKey: caller,
        });
      } catch (error) {
        answer = errorAnswer(error);
      }
    }
    settle?.(answer);
    if (faults.take('lostResponse', route)) {
      req.socket.destroy();
      return;
    }
    send(res, requestId, answer);
  }

  server.on('request', (req, res) => {
    handle(req, res).catch(() => send(res, randomUUID(), errorAnswer(undefined)));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  ctx.baseUrl = `http://127.0.0.1:${port}/v1`;

  return {
    url: ctx.baseUrl,
    get webhookPublicKeyPem() {
      return processRsaKey('webhook', 0).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    },
    createApiUser() {
      const { publicKey, privateKey } = processRsaKey('user', users++);
      const apiKey = randomUUID();
      publicKeys.set(apiKey, publicKey);
      return { apiKey, privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
    },
    registerApiUser(apiKey, publicKeyPem) {
      publicKeys.set(apiKey, createPublicKey(publicKeyPem));
    },
    faults: {
      set(settings) {
        faults.set(settings);
        // Unreachable from now on: connections kept alive go too.
        if (settings.unreachable) for (const socket of sockets) socket.destroy();
      },
      clear: () => faults.clear(),
    },
    approve: (txId) => engine.approve(txId),
    reject: (txId) => engine.reject(txId),
    replaceHash: (txId) => engine.replaceHash(txId),
    transactions: () =>
      state.transactions.map((tx) =>
        transactionView(tx, vaultName(tx.vaultId), engine.keys.account(tx.vaultId).address),
      ),
    vaultAccounts: () =>
      state.vaults.map((v) => ({
        id: v.id,
        name: v.name,
        address: engine.keys.account(v.id).address,
        assets: [...v.assets],
      })),
    requests,
    async stop() {
      stopped = true;
      engine.stop();
      webhooks?.stop();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      if (saveTimer) clearTimeout(saveTimer);
      if (options.statePath) saveState(options.statePath, state, maxStateBytes);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
    },
  };
}
