import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseRpcMaxLagBlocks, parseRpcMaxRps, parseRpcUrls } from '#api/chain/settings.ts';
import { type MasterKeyRing, masterKeyRing } from '#api/crypto/secretBox.ts';
import { classifyAddress } from '#api/delivery/addressClass.ts';
import { type DeliverySettings, parseDeliverySettings } from '#api/delivery/settings.ts';
import { BaseError } from '#api/errors/BaseError.ts';
import { type EventNotifierSettings, parseEventNotifierSettings } from '#api/eventNotifier/settings.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '#api/http/appDeps.ts';
import { type CorsSettings, parseCorsSettings } from '#api/http/cors.ts';
import { parseRateLimitSettings, type RateLimitSettings } from '#api/http/rateLimitSettings.ts';
import { parseTrustedProxies } from '#api/http/trustedProxies.ts';
import { type LaneConcurrency, parseLaneConcurrency } from '#api/jobs/lanes.ts';
import { type MetricsSettings, parseMetricsSettings } from '#api/metrics/settings.ts';
import {
  parseLowBalance,
  parseMaxFeePerGas,
  parseMaxInFlight,
  parseMaxWalletsPerProject,
  parseWaitForFunds,
} from '#api/transactions/settings.ts';
import { custodianOf, type RemoteCustodianSettings, WALLET_TYPES } from '#api/wallets/custodians.ts';
import { keepDevSecrets } from './devSecrets.ts';
import type { NetworkId } from './networks.ts';
import { type Env, parseInteger, parsePort } from './parse.ts';
import { readSecretFiles } from './secretFiles.ts';
import { DEFAULT_BODY_LIMIT_BYTES } from './variables.ts';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/** A custodian's settings are its fields by the name of its entry's `configuration` (RemoteCustodianSettings). */
export interface Config extends RemoteCustodianSettings {
  readonly env: 'development' | 'test' | 'production';
  /** Where development state lives: embedded Postgres data, generated secrets. */
  readonly dataDir: string;
  /** External PostgreSQL; when absent the embedded server under `dataDir` is used. */
  readonly databaseUrl: string | undefined;
  readonly host: string;
  readonly port: number;
  readonly logLevel: string;
  /**
   * The 32-byte keys that encrypt secrets at rest (mnemonic, webhook secrets): MASTER_KEYS, the current key first, or
   * MASTER_KEY alone.
   */
  readonly masterKey: MasterKeyRing;
  /** HMAC key that signs access tokens (the first of TOKEN_SIGNING_KEYS, or TOKEN_SIGNING_KEY). */
  readonly tokenSigningKey: Buffer;
  /** Keys that signed earlier tokens and still verify them (the rest of TOKEN_SIGNING_KEYS); none by default. */
  readonly previousTokenSigningKeys: readonly Buffer[];
  readonly rpcUrls: Readonly<Partial<Record<NetworkId, string>>>;
  /** Per network, the most JSON-RPC calls per second sent to its RPC (RPC_MAX_RPS_<id>); absent: no limit. */
  readonly rpcMaxRps: Readonly<Partial<Record<NetworkId, number>>>;
  /** RPC_MAX_LAG_BLOCKS_<id>: with several endpoints, how far behind one may be before it is ranked last. */
  readonly rpcMaxLagBlocks: Readonly<Partial<Record<NetworkId, number>>>;
  /** Largest accepted request body, in bytes. */
  readonly bodyLimit: number;
  /** How long a client has to send a whole request (REQUEST_TIMEOUT_MS). */
  readonly requestTimeoutMs: number;
  /** Event scanning. */
  readonly eventNotifier: EventNotifierSettings;
  /** Webhook delivery and webhook endpoints. */
  readonly delivery: DeliverySettings;
  /** Per-credential and failed-authentication rate limits. */
  readonly rateLimit: RateLimitSettings;
  /** Origins browsers may call the API from. */
  readonly cors: CorsSettings;
  /** Proxies whose X-Forwarded-For names the client (TRUSTED_PROXIES); none by default. */
  readonly trustedProxies: readonly string[];
  /** Per network, the most transactions of one wallet sent and not yet mined (MAX_IN_FLIGHT_<id>). */
  readonly maxInFlight: Readonly<Partial<Record<NetworkId, number>>>;
  /** MAX_WALLETS_PER_PROJECT: the most wallets of one network type in a project's pool. */
  readonly maxWalletsPerProject: number;
  /** WAIT_FOR_FUNDS_SECONDS, in ms. */
  readonly waitForFundsMs: number;
  /** Per network, the most wei per gas the platform signs (MAX_FEE_PER_GAS_GWEI_<id>, given in gwei). */
  readonly maxFeePerGas: Readonly<Partial<Record<NetworkId, bigint>>>;
  /** LOW_BALANCE_WEI_<id>: per network, the balance under which a system wallet is reported low. */
  readonly lowBalanceWei: Readonly<Partial<Record<NetworkId, bigint>>>;
  /** Jobs each lane of a worker process runs at once (WORKER_CONCURRENCY_<LANE>); see jobs/lanes.ts. */
  readonly workerConcurrency: LaneConcurrency;
  /** Where `GET /metrics` answers, and the bearer token it takes (METRICS_TOKEN, METRICS_PORT, METRICS_HOST). */
  readonly metrics: MetricsSettings;
  /** FAULT_INJECTION=1 (development and test only): the API serves the fault routes of runtime/faultInjection.ts. */
  readonly faultInjection: boolean;
  /** Where people open the developer console (CONSOLE_URL): what `console-link` prints links to. */
  readonly consoleUrl: string;
  /** The built developer console the API serves at /console/ (CONSOLE_DIR, default apps/console/dist). */
  readonly consoleDir: string;
}

export class ConfigError extends BaseError {
  override name = 'ConfigError';
  readonly code = 'INTERNAL_ERROR';
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

/**
 * Reads the configuration from the environment once, validates every variable and returns a frozen object.
 * All problems are reported together. In production the secrets must be given; elsewhere they are generated
 * once into `<dataDir>/secrets.json` so a fresh clone starts with no setup. A secret may be given as a file
 * (`<NAME>_FILE`, secretFiles.ts).
 */
export function loadConfig(environment: Env = process.env): Config {
  const problems: string[] = [];
  const env = readSecretFiles(environment, problems);
  const nodeEnv = env.NODE_ENV ?? 'development';
  if (nodeEnv !== 'development' && nodeEnv !== 'test' && nodeEnv !== 'production') {
    problems.push(`NODE_ENV must be development, test or production (got "${nodeEnv}")`);
  }
  const dataDir = path.resolve(REPO_ROOT, env.DATA_DIR ?? '.data');
  const port = parsePort('API_PORT', env.API_PORT ?? '8080', problems);
  const bodyLimit = parseInteger(
    'BODY_LIMIT_BYTES',
    env.BODY_LIMIT_BYTES ?? String(DEFAULT_BODY_LIMIT_BYTES),
    problems,
    1024,
  );
  const requestTimeoutMs = parseInteger(
    'REQUEST_TIMEOUT_MS',
    env.REQUEST_TIMEOUT_MS ?? String(DEFAULT_REQUEST_TIMEOUT_MS),
    problems,
    1_000,
    600_000,
  );

  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must be a postgres:// or postgresql:// URL');
  }

  const rpcUrls = parseRpcUrls(env, problems);

  const production = nodeEnv === 'production';
  const secrets =
    production || ((env.MASTER_KEY || env.MASTER_KEYS) && (env.TOKEN_SIGNING_KEY || env.TOKEN_SIGNING_KEYS))
      ? { masterKey: env.MASTER_KEY, tokenSigningKey: env.TOKEN_SIGNING_KEY }
      : devSecrets(dataDir, env);
  const masterKeys = parseKeyList(
    env,
    'MASTER_KEY',
    secrets.masterKey,
    'set only MASTER_KEYS, the current key first (list MASTER_KEY after it until mountain-admin rotate-master-key ' +
      'has re-sealed every secret)',
    problems,
  );
  const [tokenSigningKey, ...previousTokenSigningKeys] = parseKeyList(
    env,
    'TOKEN_SIGNING_KEY',
    secrets.tokenSigningKey,
    'set only TOKEN_SIGNING_KEYS, the signing key first (list TOKEN_SIGNING_KEY after it while its tokens must ' +
      'still verify)',
    problems,
  );

  const eventNotifier = parseEventNotifierSettings(env, problems);
  const delivery = parseDeliverySettings(env, problems);
  const rateLimit = parseRateLimitSettings(env, problems);
  const cors = parseCorsSettings(env, problems);
  const trustedProxies = parseTrustedProxies(env, problems);
  const metrics = parseMetricsSettings(env, problems);
  const maxInFlight = parseMaxInFlight(env, problems);
  const maxWalletsPerProject = parseMaxWalletsPerProject(env, problems);
  const waitForFundsMs = parseWaitForFunds(env, problems);
  const rpcMaxRps = parseRpcMaxRps(env, problems);
  const rpcMaxLagBlocks = parseRpcMaxLagBlocks(env, problems);
  const maxFeePerGas = parseMaxFeePerGas(env, problems);
  const lowBalanceWei = parseLowBalance(env, problems);
  const workerConcurrency = parseLaneConcurrency(env, problems);
  const faultInjection = env.FAULT_INJECTION === '1';
  if (faultInjection && production) problems.push('FAULT_INJECTION is for development and tests only');
  if (env.FAULT_INJECTION !== undefined && !['0', '1', ''].includes(env.FAULT_INJECTION)) {
    problems.push(`FAULT_INJECTION must be 1 or 0 (got "${env.FAULT_INJECTION}")`);
  }

  // Each custodian's settings, read by its registry entry, in the registry's order.
  const custody = Object.fromEntries(
    WALLET_TYPES.flatMap((type) => {
      const configuration = custodianOf(type).configuration;
      if (!configuration) return [];
      return [[configuration.name, configuration.settings({ env, nodeEnv, production, dataDir }, problems)]];
    }),
  ) as unknown as RemoteCustodianSettings;

  // Development's defaults (secrets generated into DATA_DIR, test keys) are for this machine: an API that others can
  // reach must be told what it is.
  const host = env.API_HOST ?? '127.0.0.1';
  if (env.NODE_ENV === undefined && !isLoopback(host)) {
    problems.push(
      `API_HOST ${host} is not a loopback address and NODE_ENV is unset: set NODE_ENV=production for a deployment ` +
        '(or NODE_ENV=development to serve development’s defaults on that address anyway)',
    );
  }

  const consoleUrl = env.CONSOLE_URL || `http://${host}:${port}/console/`;
  if (!/^https?:\/\/[^/]/.test(consoleUrl)) problems.push('CONSOLE_URL must be an http(s) URL');

  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({
    env: nodeEnv as Config['env'],
    dataDir,
    databaseUrl,
    host,
    port,
    logLevel: env.LOG_LEVEL ?? (nodeEnv === 'test' ? 'warn' : 'info'),
    masterKey: masterKeyRing(masterKeys),
    tokenSigningKey: tokenSigningKey as Buffer,
    previousTokenSigningKeys: Object.freeze(previousTokenSigningKeys),
    rpcUrls,
    rpcMaxRps,
    rpcMaxLagBlocks,
    bodyLimit,
    requestTimeoutMs,
    eventNotifier,
    delivery,
    rateLimit,
    cors,
    trustedProxies,
    maxInFlight,
    maxWalletsPerProject,
    waitForFundsMs,
    workerConcurrency,
    maxFeePerGas,
    lowBalanceWei,
    metrics,
    faultInjection,
    ...custody,
    consoleUrl,
    consoleDir: path.resolve(REPO_ROOT, env.CONSOLE_DIR || 'apps/console/dist'),
  });
}

/** `localhost`, or an address of the loopback range (127.0.0.0/8, ::1, and their IPv6 forms). */
function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  return isIP(host) !== 0 && classifyAddress(host).kind === 'loopback';
}

/**
 * A key that may rotate: `<NAME>S` lists the key in use first, then the previous keys still honoured (comma
 * separated); `<NAME>` (`single`: the variable, or the development key) is the same as a list of one key. Both set
 * is refused (`bothSet` says so): which one was meant cannot be told, and a wrong guess uses the wrong key.
 */
function parseKeyList(
  env: Env,
  name: 'TOKEN_SIGNING_KEY' | 'MASTER_KEY',
  single: string | undefined,
  bothSet: string,
  problems: string[],
): Buffer[] {
  const listName = `${name}S`;
  const list = env[listName]?.trim();
  if (!list) return [parseKey(name, single, problems, `${name} or ${listName}`)];
  if (env[name]) {
    problems.push(`${name} and ${listName} are both set: ${bothSet}`);
    return [Buffer.alloc(0)];
  }
  const items = list.split(',').map((item) => item.trim());
  const keys = items.map((item, i) => {
    const itemName = `${listName}: key ${i + 1} of ${items.length}`;
    if (item === '') problems.push(`${itemName} is empty`);
    return item === '' ? Buffer.alloc(0) : parseKey(itemName, item, problems);
  });
  keys.forEach((key, i) => {
    const first = keys.findIndex((k) => k.length > 0 && k.equals(key));
    if (first !== -1 && first < i) problems.push(`${listName}: keys ${first + 1} and ${i + 1} are the same key`);
  });
  return keys;
}

function parseKey(name: string, value: string | undefined, problems: string[], required = name): Buffer {
  if (!value) {
    problems.push(`${required} is required in production (32 random bytes, base64)`);
    return Buffer.alloc(0);
  }
  const key = Buffer.from(value, 'base64');
  if (key.length !== 32) problems.push(`${name} must be 32 bytes encoded as base64 (got ${key.length} bytes)`);
  return key;
}

/** Development and test secrets: taken from the environment when set, otherwise generated once and kept. */
function devSecrets(dataDir: string, env: Env): { masterKey?: string; tokenSigningKey?: string } {
  const stored = keepDevSecrets(dataDir, {
    masterKey: () => randomBytes(32).toString('base64'),
    tokenSigningKey: () => randomBytes(32).toString('base64'),
  });
  return {
    masterKey: env.MASTER_KEY ?? stored.masterKey,
    tokenSigningKey: env.TOKEN_SIGNING_KEY ?? stored.tokenSigningKey,
  };
}
