// The API's declared test surface (`@mountain/api/testing`, `#api-testing/*` inside the package): other
// workspaces' tests start the real app through it instead of reaching into apps/api/src or apps/api/test.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp } from '#api/app.ts';
import { signAccessToken } from '#api/auth/accessTokens.ts';
import { createConsoleLink } from '#api/auth/consoleLinks.ts';
import { createChains } from '#api/chain/chains.ts';
import type { NetworkId } from '#api/config/networks.ts';
import { type DeliverySettings, defaultDeliverySettings } from '#api/delivery/settings.ts';
import { API_PREFIX, type AppDeps } from '#api/http/appDeps.ts';
import type { CorsSettings } from '#api/http/cors.ts';
import type { RateLimitSettings } from '#api/http/rateLimitSettings.ts';
import { createProject } from '#api/projects/projects.ts';
import { createUser, type Role, setMembership } from '#api/projects/users.ts';
import { routes } from '#api/routes/index.ts';
import { createLogger, type LogOptions } from '#api/runtime/logger.ts';
import type { TransactionSettings } from '#api/transactions/settings.ts';
import { createAwsKmsCustody } from '#api/wallets/awsKms/awsKmsCustody.ts';
import type { AwsKmsSettings } from '#api/wallets/awsKms/settings.ts';
import type { RemoteCustodians, WalletType } from '#api/wallets/custodians.ts';
import { createFireblocksCustody } from '#api/wallets/fireblocks/fireblocksCustody.ts';
import type { FireblocksSettings } from '#api/wallets/fireblocks/settings.ts';
import { loadWalletKeys, type WalletKeys } from '#api/wallets/fromMnemonic/walletKeys.ts';
import { createSignerProvider } from '#api/wallets/signer.ts';
import { createWorker } from '#api/worker/worker.ts';
import { createResponseValidator } from './openapi.ts';
import { createTestDatabase, type TestDatabase } from './testDatabase.ts';

export interface CallOptions {
  headers?: Record<string, string>;
  body?: unknown;
  /** Sent as is, instead of `body` as JSON. */
  rawBody?: string | Buffer;
  query?: Record<string, string>;
}

export interface CallResult {
  status: number;
  body: any;
  headers: Record<string, unknown>;
}

const validator = createResponseValidator();
const routeById = new Map(routes.map((r) => [r.operationId, r]));

/**
 * An app on a fresh database, with helpers to make projects, users and tokens, and `call()`, which sends a
 * request to an operation and checks the answer against the OpenAPI document.
 */
export async function createHarness(
  options: {
    rpcUrls?: Partial<Record<NetworkId, string>>;
    /** Also run a job worker on the test database, as a worker process would. */
    worker?: boolean;
    /** The app's and the worker's logger (pino options); silent, and the worker's to stderr, when absent. */
    logger?: LogOptions;
    /** Rate limits; the generous defaults when absent. */
    rateLimit?: RateLimitSettings;
    cors?: CorsSettings;
    /** How long a client has to send a whole request; 30 s when absent. */
    requestTimeoutMs?: number;
    /** The worker's transaction settings over the defaults (shorter waits for the chain lab). */
    transactions?: Partial<TransactionSettings>;
    /** METRICS_TOKEN: the app then answers `GET /metrics` to it. */
    metricsToken?: string;
    /** Fireblocks custody (against the simulator of `@mountain/testkit/fireblocks`). */
    fireblocks?: FireblocksSettings;
    /** A built developer console to serve at /console/ (apps/console/dist). */
    consoleDir?: string;
    /** AWS KMS custody (against the simulator of `@mountain/testkit/awsKms`). */
    awsKms?: AwsKmsSettings;
    /**
     * The app's and the worker's delivery settings: when absent, the defaults with loopback allowed, turned on here
     * as `npm start` does, since the tests' webhook receivers listen on 127.0.0.1.
     */
    delivery?: DeliverySettings;
    /** MAX_WALLETS_PER_PROJECT; 64 when absent. */
    maxWalletsPerProject?: number;
  } = {},
) {
  const database: TestDatabase = await createTestDatabase();
  const masterKey = randomBytes(32);
  const tokenSigningKey = randomBytes(32);
  const keys: WalletKeys = await loadWalletKeys(database.db, masterKey);
  const networks = Object.keys(options.rpcUrls ?? {}).map(Number) as NetworkId[];
  const custodians: RemoteCustodians = {
    ...(options.fireblocks ? { fireblocks: createFireblocksCustody(options.fireblocks, networks) } : {}),
    // Retries a few milliseconds apart: the simulator's faults are counted, not timed.
    ...(options.awsKms ? { awsKms: createAwsKmsCustody(options.awsKms, { retryBaseMs: 5 }) } : {}),
  };
  const deps: AppDeps = {
    db: database.db,
    chains: createChains(options.rpcUrls ?? {}),
    tokenSigningKey,
    masterKey,
    bodyLimit: 64 * 1024,
    delivery: options.delivery ?? defaultDeliverySettings('loopback'),
    ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}),
    ...(options.cors ? { cors: options.cors } : {}),
    ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
    ...(options.metricsToken ? { metricsToken: options.metricsToken } : {}),
    ...(options.consoleDir ? { consoleDir: options.consoleDir } : {}),
    ...(options.maxWalletsPerProject ? { maxWalletsPerProject: options.maxWalletsPerProject } : {}),
    custodians,
  };
  const app: FastifyInstance = buildApp(deps, options.logger ? { logger: options.logger } : {});
  await app.ready();
  const workerStop = new AbortController();
  const worker = options.worker
    ? createWorker({
        deps: {
          db: database.db,
          chains: deps.chains,
          signers: createSignerProvider(keys, custodians),
          masterKey,
          signal: workerStop.signal,
          delivery: deps.delivery,
          ...(options.logger ? { log: createLogger(options.logger) } : {}),
          ...(options.transactions ? { transactions: options.transactions } : {}),
        },
      })
    : undefined;
  await worker?.start();

  async function call(operationId: string, options: CallOptions = {}): Promise<CallResult> {
    const route = routeById.get(operationId);
    if (!route) throw new Error(`Unknown operation ${operationId}`);
    const request: InjectOptions = {
      method: route.method,
      url: `${API_PREFIX}${route.url}`,
      headers: { ...options.headers },
      ...(options.query ? { query: options.query } : {}),
    };
    if (options.rawBody !== undefined) request.payload = options.rawBody;
    else if (options.body !== undefined) request.payload = options.body as object;
    const response = await app.inject(request);
    const body = response.body ? JSON.parse(response.body) : undefined;
    validator.assertResponse(operationId, response.statusCode, body);
    return { status: response.statusCode, body, headers: response.headers };
  }

  return {
    app,
    db: database.db,
    /** The test database's URL, for processes started by the test (a worker process, the admin CLI). */
    databaseUrl: database.url,
    keys,
    deps,
    masterKey,
    tokenSigningKey,
    call,
    validator,
    async project(name = 'Test project', options: { walletType?: WalletType; kmsKeyId?: string } = {}) {
      return createProject(database.db, keys, { projectName: name, keyMode: 'test', ...options }, custodians);
    },
    async user(email = `user-${randomBytes(4).toString('hex')}@example.com`) {
      return createUser(database.db, { email });
    },
    async member(projectId: number, role: Role) {
      const user = await createUser(database.db, { email: `${role}-${randomBytes(4).toString('hex')}@example.com` });
      await setMembership(database.db, { projectId, userId: user.id, role });
      return { userId: user.id, token: this.token(user.id) };
    },
    /** A one-time console sign-in link's code for the user, as `mountain-admin console-link` makes it. */
    async consoleLinkCode(userId: number, options: { projectId?: number; expiresInSeconds?: number } = {}) {
      const { code } = await createConsoleLink(database.db, {
        userId,
        expiresInSeconds: options.expiresInSeconds ?? 900,
        ...(options.projectId !== undefined ? { projectId: options.projectId } : {}),
      });
      return code;
    },
    token(userId: number, options: { projectId?: number; expiresInSeconds?: number; now?: number } = {}) {
      return signAccessToken(tokenSigningKey, {
        userId,
        expiresInSeconds: options.expiresInSeconds ?? 3600,
        ...(options.projectId !== undefined ? { projectId: options.projectId } : {}),
        ...(options.now !== undefined ? { now: options.now } : {}),
      }).token;
    },
    async close() {
      workerStop.abort();
      await worker?.stop();
      await app.close();
      await database.drop();
    },
  };
}

export type Harness = Awaited<ReturnType<typeof createHarness>>;
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
export const apiKey = (key: string) => ({ 'x-api-key': key });
