import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type DeliverySettings, parseDeliverySettings } from '#api/delivery/settings.ts';
import { defaultEventNotifierSettings, type EventNotifierSettings } from '#api/eventNotifier/settings.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '#api/http/appDeps.ts';
import { type CorsSettings, DEFAULT_CORS } from '#api/http/cors.ts';
import { DEFAULT_RATE_LIMIT, type RateLimitSettings } from '#api/http/rateLimitSettings.ts';
import { DEFAULT_LANE_CONCURRENCY, JOB_LANES, type JobLane, type LaneConcurrency } from '#api/jobs/lanes.ts';
import type { MetricsSettings } from '#api/metrics/settings.ts';
import { devAwsKms, hasOwnAwsKms } from '#api/wallets/awsKms/devSimulator.ts';
import { type AwsKmsSettings, parseAwsKmsSettings } from '#api/wallets/awsKms/settings.ts';
import { devFireblocksEnv } from '#api/wallets/fireblocks/devSimulator.ts';
import { type FireblocksSettings, parseFireblocksSettings } from '#api/wallets/fireblocks/settings.ts';
import { DEFAULT_RPC_MAX_RPS, NETWORK_IDS, type NetworkId } from './networks.ts';
import { parseInteger } from './parseInteger.ts';
import { readSecretFiles } from './secretFiles.ts';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

export interface Config {
  readonly env: 'development' | 'test' | 'production';
  /** Where development state lives: embedded Postgres data, generated secrets. */
  readonly dataDir: string;
  /** External PostgreSQL; when absent the embedded server under `dataDir` is used. */
  readonly databaseUrl: string | undefined;
  readonly host: string;
  readonly port: number;
  readonly logLevel: string;
  /** 32-byte key that encrypts secrets at rest (mnemonic, webhook secrets). */
  readonly masterKey: Buffer;
  /** HMAC key that signs access tokens (the first of TOKEN_SIGNING_KEYS, or TOKEN_SIGNING_KEY). */
  readonly tokenSigningKey: Buffer;
  /** Keys that signed earlier tokens and still verify them (the rest of TOKEN_SIGNING_KEYS); none by default. */
  readonly previousTokenSigningKeys: readonly Buffer[];
  readonly rpcUrls: Readonly<Partial<Record<NetworkId, string>>>;
  /** Per network, the most JSON-RPC calls per second sent to its RPC (RPC_MAX_RPS_<id>); absent: no limit. */
  readonly rpcMaxRps: Readonly<Partial<Record<NetworkId, number>>>;
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
  /** Per network, the most transactions of one wallet sent and not yet mined (MAX_IN_FLIGHT_<id>). */
  readonly maxInFlight: Readonly<Partial<Record<NetworkId, number>>>;
  /** Per network, the most wei per gas the platform signs (MAX_FEE_PER_GAS_GWEI_<id>, given in gwei). */
  readonly maxFeePerGas: Readonly<Partial<Record<NetworkId, bigint>>>;
  /** Jobs each lane of a worker process runs at once (WORKER_CONCURRENCY_<LANE>); see jobs/lanes.ts. */
  readonly workerConcurrency: LaneConcurrency;
  /** Where `GET /metrics` answers, and the bearer token it takes (METRICS_TOKEN, METRICS_PORT, METRICS_HOST). */
  readonly metrics: MetricsSettings;
  /** FAULT_INJECTION=1 (development and test only): the API serves the fault routes of runtime/faultInjection.ts. */
  readonly faultInjection: boolean;
  /** Fireblocks custody (FIREBLOCKS_*), when FIREBLOCKS_API_KEY is set. */
  readonly fireblocks: FireblocksSettings | undefined;
  /** Where people open the developer console (CONSOLE_URL): what `console-link` prints links to. */
  readonly consoleUrl: string;
  /** The built developer console the API serves at /console/ (CONSOLE_DIR, default apps/console/dist). */
  readonly consoleDir: string;
  /** AWS KMS custody (AWS_REGION, AWS_KMS_ENDPOINT, credentials from the SDK's chain), when AWS_REGION is set. */
  readonly awsKms: AwsKmsSettings | undefined;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

type Env = Record<string, string | undefined>;

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
  const bodyLimit = parseInteger('BODY_LIMIT_BYTES', env.BODY_LIMIT_BYTES ?? String(64 * 1024), problems, 1024);
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

  const rpcUrls: Partial<Record<NetworkId, string>> = {};
  for (const id of NETWORK_IDS) {
    const value = env[`RPC_URL_${id}`];
    if (!value) continue;
    if (!/^(https?|wss?):\/\//.test(value)) problems.push(`RPC_URL_${id} must be an http(s) or ws(s) URL`);
    else rpcUrls[id] = value;
  }

  const production = nodeEnv === 'production';
  const secrets =
    production || (env.MASTER_KEY && (env.TOKEN_SIGNING_KEY || env.TOKEN_SIGNING_KEYS))
      ? { masterKey: env.MASTER_KEY, tokenSigningKey: env.TOKEN_SIGNING_KEY }
      : devSecrets(dataDir, env);
  const masterKey = parseKey('MASTER_KEY', secrets.masterKey, problems);
  const [tokenSigningKey, ...previousTokenSigningKeys] = parseTokenSigningKeys(env, secrets.tokenSigningKey, problems);

  const eventNotifier = parseEventNotifier(env, nodeEnv, problems);
  const delivery = parseDeliverySettings(env, production, problems);
  const rateLimit = parseRateLimit(env, problems);
  const cors = parseCors(env, problems);
  const metrics = parseMetrics(env, problems);
  const maxInFlight: Partial<Record<NetworkId, number>> = {};
  for (const id of NETWORK_IDS) {
    const value = env[`MAX_IN_FLIGHT_${id}`];
    if (value !== undefined) maxInFlight[id] = parseInteger(`MAX_IN_FLIGHT_${id}`, value, problems, 1, 1_000_000);
  }
  const rpcMaxRps: Partial<Record<NetworkId, number>> = { ...DEFAULT_RPC_MAX_RPS };
  for (const id of NETWORK_IDS) {
    const value = env[`RPC_MAX_RPS_${id}`];
    if (value === undefined) continue;
    const rps = parseInteger(`RPC_MAX_RPS_${id}`, value, problems, 0, 1_000_000);
    if (rps > 0) rpcMaxRps[id] = rps;
    else delete rpcMaxRps[id];
  }
  const maxFeePerGas: Partial<Record<NetworkId, bigint>> = {};
  for (const id of NETWORK_IDS) {
    const name = `MAX_FEE_PER_GAS_GWEI_${id}`;
    const value = env[name];
    if (value === undefined) continue;
    const wei = parseGweiAmount(value);
    if (wei === undefined)
      problems.push(`${name} must be a number of gwei above 0 and at most 10000000, such as 500 or 0.1`);
    else maxFeePerGas[id] = wei;
  }

  const workerConcurrency: Record<JobLane, number> = { ...DEFAULT_LANE_CONCURRENCY };
  for (const lane of JOB_LANES) {
    const name = `WORKER_CONCURRENCY_${lane.toUpperCase()}`;
    const value = env[name];
    if (value !== undefined && lane !== 'upkeep')
      workerConcurrency[lane] = parseInteger(name, value, problems, 1, 1_000);
  }

  const faultInjection = env.FAULT_INJECTION === '1';
  if (faultInjection && production) problems.push('FAULT_INJECTION is for development and tests only');
  if (env.FAULT_INJECTION !== undefined && !['0', '1', ''].includes(env.FAULT_INJECTION)) {
    problems.push(`FAULT_INJECTION must be 1 or 0 (got "${env.FAULT_INJECTION}")`);
  }

  // In development without a workspace of its own, the simulated one `npm start` runs (if it runs).
  const fireblocksEnv =
    nodeEnv === 'development' && !env.FIREBLOCKS_API_KEY ? { ...env, ...devFireblocksEnv(dataDir) } : env;
  const fireblocks = parseFireblocksSettings(fireblocksEnv, production, problems);
  // Likewise the simulated KMS, when the environment names no AWS credentials or endpoint of its own.
  const devKms = nodeEnv === 'development' && !hasOwnAwsKms(env) ? devAwsKms(dataDir) : undefined;
  const awsKms = parseAwsKmsSettings(
    devKms ? { ...env, ...devKms.env } : env,
    production,
    problems,
    devKms?.credentials,
  );

  const consoleUrl = env.CONSOLE_URL || `http://${env.API_HOST ?? '127.0.0.1'}:${port}/console/`;
  if (!/^https?:\/\/[^/]/.test(consoleUrl)) problems.push('CONSOLE_URL must be an http(s) URL');

  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({
    env: nodeEnv as Config['env'],
    dataDir,
    databaseUrl,
    host: env.API_HOST ?? '127.0.0.1',
    port,
    logLevel: env.LOG_LEVEL ?? (nodeEnv === 'test' ? 'warn' : 'info'),
    masterKey,
    tokenSigningKey: tokenSigningKey as Buffer,
    previousTokenSigningKeys: Object.freeze(previousTokenSigningKeys),
    rpcUrls: Object.freeze(rpcUrls),
    rpcMaxRps: Object.freeze(rpcMaxRps),
    bodyLimit,
    requestTimeoutMs,
    eventNotifier,
    delivery,
    rateLimit,
    cors,
    maxInFlight: Object.freeze(maxInFlight),
    workerConcurrency: Object.freeze(workerConcurrency),
    maxFeePerGas: Object.freeze(maxFeePerGas),
    metrics,
    faultInjection,
    fireblocks,
    consoleUrl,
    consoleDir: path.resolve(REPO_ROOT, env.CONSOLE_DIR || 'apps/console/dist'),
    awsKms,
  });
}

/** "500" or "0.1" gwei in wei; undefined unless above 0, at most 10,000,000 gwei and at most 9 decimals. */
function parseGweiAmount(text: string): bigint | undefined {
  const match = /^(\d{1,8})(?:\.(\d{1,9}))?$/.exec(text.trim());
  if (!match) return undefined;
  const wei = BigInt(match[1] as string) * 1_000_000_000n + BigInt((match[2] ?? '').padEnd(9, '0') || '0');
  return wei > 0n && wei <= 10_000_000n * 1_000_000_000n ? wei : undefined;
}

function parseRateLimit(env: Env, problems: string[]): RateLimitSettings {
  const int = (name: string, fallback: number, min: number) =>
    env[name] === undefined ? fallback : parseInteger(name, env[name] as string, problems, min, 1_000_000_000);
  const perMinute = int('RATE_LIMIT_PER_MINUTE', DEFAULT_RATE_LIMIT.perMinute, 0);
  return Object.freeze({
    perMinute,
    burst: int('RATE_LIMIT_BURST', perMinute || DEFAULT_RATE_LIMIT.burst, 1),
    authFailuresPerMinute: int('RATE_LIMIT_AUTH_FAILURES_PER_MINUTE', DEFAULT_RATE_LIMIT.authFailuresPerMinute, 0),
  });
}

/** METRICS_TOKEN (16 to 256 visible characters), METRICS_PORT (0 picks a free one) and METRICS_HOST. */
function parseMetrics(env: Env, problems: string[]): MetricsSettings {
  const token = env.METRICS_TOKEN || undefined;
  // The token is a secret: a problem describes it, never quotes it.
  if (token !== undefined && !/^[\x21-\x7e]{16,256}$/.test(token)) {
    problems.push('METRICS_TOKEN must be 16 to 256 visible ASCII characters, without spaces');
  }
  const port = env.METRICS_PORT ? parsePort('METRICS_PORT', env.METRICS_PORT, problems) : undefined;
  return Object.freeze({ token, port, host: env.METRICS_HOST || '127.0.0.1' });
}

function parseCors(env: Env, problems: string[]): CorsSettings {
  const value = env.CORS_ALLOWED_ORIGINS?.trim();
  if (value === undefined || value === '' || value === '*') return DEFAULT_CORS;
  const origins = value.split(',').map((o) => o.trim());
  for (const origin of origins) {
    // An origin is scheme, host and port only, exactly as browsers send it in the Origin header.
    let valid = false;
    try {
      valid = /^https?:$/.test(new URL(origin).protocol) && new URL(origin).origin === origin;
    } catch {}
    if (!valid) problems.push(`CORS_ALLOWED_ORIGINS: "${origin}" is not an origin such as https://app.example.com`);
  }
  return Object.freeze({ allowedOrigins: Object.freeze(origins) });
}

function parseEventNotifier(env: Env, nodeEnv: string, problems: string[]): EventNotifierSettings {
  const defaults = defaultEventNotifierSettings(nodeEnv === 'production' ? 'production' : 'development');
  const confirmations = { ...defaults.confirmations };
  for (const id of NETWORK_IDS) {
    const value = env[`CONFIRMATIONS_${id}`];
    if (value !== undefined) confirmations[id] = parseInteger(`CONFIRMATIONS_${id}`, value, problems, 0, 10_000);
  }
  const int = (name: string, fallback: number, min: number, max: number) =>
    env[name] === undefined ? fallback : parseInteger(name, env[name] as string, problems, min, max);
  return Object.freeze({
    confirmations: Object.freeze(confirmations),
    maxBlockRange: int('EVENT_SCAN_MAX_BLOCK_RANGE', defaults.maxBlockRange, 1, 1_000_000),
    backfillHoldMs: int('WEBHOOK_BACKFILL_HOLD_MS', defaults.backfillHoldMs, 0, 3_600_000),
    maxSubscriptionsPerProject: int('MAX_SUBSCRIPTIONS_PER_PROJECT', defaults.maxSubscriptionsPerProject, 1, 100_000),
    maxConcurrentScansPerProject: int(
      'MAX_CONCURRENT_SCANS_PER_PROJECT',
      defaults.maxConcurrentScansPerProject,
      1,
      100,
    ),
    maxConcurrentDeliveriesPerProject: int(
      'MAX_CONCURRENT_DELIVERIES_PER_PROJECT',
      defaults.maxConcurrentDeliveriesPerProject,
      1,
      100,
    ),
  });
}

/**
 * TOKEN_SIGNING_KEYS: the key that signs access tokens, then the previous keys whose tokens still verify, comma
 * separated. TOKEN_SIGNING_KEY (`single`: the variable, or the development key) is the same as a list of one key.
 * Both set is refused: which one was meant cannot be told, and a wrong guess signs with the wrong key.
 */
function parseTokenSigningKeys(env: Env, single: string | undefined, problems: string[]): Buffer[] {
  const list = env.TOKEN_SIGNING_KEYS?.trim();
  if (!list) return [parseKey('TOKEN_SIGNING_KEY', single, problems, 'TOKEN_SIGNING_KEY or TOKEN_SIGNING_KEYS')];
  if (env.TOKEN_SIGNING_KEY) {
    problems.push(
      'TOKEN_SIGNING_KEY and TOKEN_SIGNING_KEYS are both set: set only TOKEN_SIGNING_KEYS, the signing key first ' +
        '(list TOKEN_SIGNING_KEY after it while its tokens must still verify)',
    );
    return [Buffer.alloc(0)];
  }
  const items = list.split(',').map((item) => item.trim());
  const keys = items.map((item, i) => {
    const name = `TOKEN_SIGNING_KEYS: key ${i + 1} of ${items.length}`;
    if (item === '') problems.push(`${name} is empty`);
    return item === '' ? Buffer.alloc(0) : parseKey(name, item, problems);
  });
  keys.forEach((key, i) => {
    const first = keys.findIndex((k) => k.length > 0 && k.equals(key));
    if (first !== -1 && first < i) problems.push(`TOKEN_SIGNING_KEYS: keys ${first + 1} and ${i + 1} are the same key`);
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

export function parsePort(name: string, value: string, problems: string[]): number {
  return parseInteger(name, value, problems, 0, 65535);
}

/** Development and test secrets: taken from the environment when set, otherwise generated once and kept. */
function devSecrets(dataDir: string, env: Env): { masterKey?: string; tokenSigningKey?: string } {
  const file = path.join(dataDir, 'secrets.json');
  let stored: { masterKey?: string; tokenSigningKey?: string } = {};
  if (existsSync(file)) {
    stored = JSON.parse(readFileSync(file, 'utf8'));
  } else {
    stored = {
      masterKey: randomBytes(32).toString('base64'),
      tokenSigningKey: randomBytes(32).toString('base64'),
    };
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  return {
    masterKey: env.MASTER_KEY ?? stored.masterKey,
    tokenSigningKey: env.TOKEN_SIGNING_KEY ?? stored.tokenSigningKey,
  };
}
