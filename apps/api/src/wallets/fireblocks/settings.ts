import { createPrivateKey, createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { NETWORK_IDS, type NetworkId } from '#api/config/networks.ts';
import { code, perNetwork, type VariableDefinition } from '#api/config/parse.ts';

/** What a deployment needs to keep its system wallets in a Fireblocks workspace. */
export interface FireblocksSettings {
  /** The API user's key (FIREBLOCKS_API_KEY). */
  readonly apiKey: string;
  /** The API user's RSA private key, PEM (FIREBLOCKS_SECRET_KEY or the file at FIREBLOCKS_SECRET_KEY_PATH). */
  readonly secretKey: string;
  /** The API's base URL, ending in /v1 (FIREBLOCKS_BASE_URL). */
  readonly baseUrl: string;
  /** Per network, the Fireblocks asset of its native coin (FIREBLOCKS_ASSET_ID_<networkId>). */
  readonly assetIds: Readonly<Partial<Record<NetworkId, string>>>;
  /** The networks whose asset a FIREBLOCKS_ASSET_ID_<networkId> variable names (the others have the defaults). */
  readonly assetIdsSet?: readonly NetworkId[];
  /** Verifies `Fireblocks-Signature` of the workspace's webhooks; without it, POST /webhooks/fireblocks is 404. */
  readonly webhookPublicKey: string | undefined;
  /** Names this deployment's vault accounts: `mountain-<deployment>-project-<id>` (DEPLOYMENT_NAME). */
  readonly deployment: string;
  /** The most Fireblocks API calls per second one process makes (FIREBLOCKS_MAX_RPS). */
  readonly maxRps: number;
  /** How often an unfinished Fireblocks transaction's status is asked for (FIREBLOCKS_POLL_INTERVAL_MS). */
  readonly pollIntervalMs: number;
}

export const DEFAULT_FIREBLOCKS_BASE_URL = 'https://api.fireblocks.io/v1';

/**
 * The assets whose ids Fireblocks documents for a network's native coin: ETH on Ethereum and ETH_TEST5 on Sepolia.
 * The others (Polygon, Arbitrum and their testnets, a local chain) are set with FIREBLOCKS_ASSET_ID_<networkId>
 * from the workspace's supported-assets list rather than guessed.
 */
export const DEFAULT_FIREBLOCKS_ASSET_IDS: Readonly<Partial<Record<NetworkId, string>>> = Object.freeze({
  1: 'ETH',
  11155111: 'ETH_TEST5',
});

type Env = Record<string, string | undefined>;

const DEFAULT_MAX_RPS = 10;
const DEFAULT_POLL_INTERVAL_MS = 5_000;

/** Fireblocks custody's variables, as the configuration reference lists them (through its registry entry). */
export const FIREBLOCKS_VARIABLES: readonly VariableDefinition[] = [
  {
    names: ['FIREBLOCKS_API_KEY'],
    default: '— (under `npm start`: a simulated workspace)',
    meaning:
      "A Fireblocks API user's key: system wallets of `--wallet-type fireblocks` live in Fireblocks vault accounts, " +
      'and Fireblocks signs and broadcasts their transactions ' +
      '([Fireblocks wallets](/docs/services/mountain-transactions/fireblocks-wallets)). Unset, no project can use ' +
      'Fireblocks, and `npm start` runs a simulated workspace on chain 1337 instead (its banner says so).',
  },
  {
    names: ['FIREBLOCKS_SECRET_KEY_PATH', 'FIREBLOCKS_SECRET_KEY'],
    default: '—',
    meaning:
      "The API user's RSA private key (≥ 2048 bits), as a PEM file or as the value itself; exactly one of them. A " +
      'wrong key or both set stop the process at start, naming the variable (never its value).',
  },
  {
    names: ['FIREBLOCKS_BASE_URL'],
    default: code(DEFAULT_FIREBLOCKS_BASE_URL),
    meaning: "The workspace's API (a sandbox has its own); https in production.",
  },
  {
    names: ['FIREBLOCKS_ASSET_ID_<networkId>'],
    default: perNetwork(DEFAULT_FIREBLOCKS_ASSET_IDS),
    meaning:
      "The Fireblocks asset of the network's native coin. A Fireblocks wallet used on a network without one " +
      'answers 422 `CUSTODY_NOT_CONFIGURED` naming the variable.',
  },
  {
    names: ['FIREBLOCKS_WEBHOOK_PUBLIC_KEY_PATH'],
    default: '—',
    meaning:
      "Fireblocks' webhook public key (PEM). With it, `POST /webhooks/fireblocks` (on the API's port) verifies " +
      '`Fireblocks-Signature` and moves a transaction at once; without it, that path is 404 and only polling ' +
      'follows Fireblocks.',
  },
  {
    names: ['FIREBLOCKS_MAX_RPS', 'FIREBLOCKS_POLL_INTERVAL_MS'],
    default: `${code(DEFAULT_MAX_RPS)} / ${code(DEFAULT_POLL_INTERVAL_MS)}`,
    meaning:
      'Fireblocks API calls per second per process, at most (creates and status look-ups are paced under it; ' +
      'look-ups take at most half, so a create never waits behind them); how often an unfinished Fireblocks ' +
      "transaction's status is asked for (webhooks move it sooner).",
  },
];

/**
 * The FIREBLOCKS_* variables, or undefined when FIREBLOCKS_API_KEY is not set (no Fireblocks custody). Problems go
 * to `problems`; a key's value is never quoted in one.
 */
export function parseFireblocksSettings(
  env: Env,
  production: boolean,
  problems: string[],
): FireblocksSettings | undefined {
  const apiKey = env.FIREBLOCKS_API_KEY?.trim();
  if (!apiKey) {
    const stray = Object.keys(env).filter((name) => name.startsWith('FIREBLOCKS_') && env[name]);
    if (stray.some((name) => /^FIREBLOCKS_(SECRET_KEY|SECRET_KEY_PATH|BASE_URL)$/.test(name))) {
      problems.push(`${stray.sort().join(', ')} set without FIREBLOCKS_API_KEY: set it too, or unset them`);
    }
    return undefined;
  }
  if (!/^[\x21-\x7e]{1,256}$/.test(apiKey)) problems.push('FIREBLOCKS_API_KEY must be 1 to 256 visible characters');
  const secretKey = readSecretKey(env, problems);
  const baseUrl = (env.FIREBLOCKS_BASE_URL?.trim() || DEFAULT_FIREBLOCKS_BASE_URL).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+/.test(baseUrl)) problems.push('FIREBLOCKS_BASE_URL must be an http(s) URL');
  else if (production && !baseUrl.startsWith('https://'))
    problems.push('FIREBLOCKS_BASE_URL must be https in production');

  const assetIds: Partial<Record<NetworkId, string>> = { ...DEFAULT_FIREBLOCKS_ASSET_IDS };
  const assetIdsSet: NetworkId[] = [];
  for (const id of NETWORK_IDS) {
    const value = env[`FIREBLOCKS_ASSET_ID_${id}`]?.trim();
    if (value === undefined || value === '') continue;
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(value)) {
      problems.push(`FIREBLOCKS_ASSET_ID_${id} must be a Fireblocks asset id such as ETH_TEST5 (got "${value}")`);
    } else {
      assetIds[id] = value;
      assetIdsSet.push(id);
    }
  }

  const deployment = env.DEPLOYMENT_NAME?.trim() || (production ? '' : 'dev');
  if (!deployment) {
    problems.push(
      'DEPLOYMENT_NAME is required in production with FIREBLOCKS_API_KEY: it names the vault accounts (mountain-<DEPLOYMENT_NAME>-project-<id>)',
    );
  } else if (!/^[a-z0-9][a-z0-9-]{0,31}$/.test(deployment)) {
    problems.push(`DEPLOYMENT_NAME must be 1 to 32 lowercase letters, digits and dashes (got "${deployment}")`);
  }

  const maxRps = integer(env, 'FIREBLOCKS_MAX_RPS', DEFAULT_MAX_RPS, 1, 1_000, problems);
  const pollIntervalMs = integer(env, 'FIREBLOCKS_POLL_INTERVAL_MS', DEFAULT_POLL_INTERVAL_MS, 100, 600_000, problems);
  return Object.freeze({
    apiKey,
    secretKey,
    baseUrl,
    assetIds: Object.freeze(assetIds),
    assetIdsSet: Object.freeze(assetIdsSet),
    webhookPublicKey: readWebhookKey(env, problems),
    deployment,
    maxRps,
    pollIntervalMs,
  });
}

/** FIREBLOCKS_SECRET_KEY (the PEM) or FIREBLOCKS_SECRET_KEY_PATH (its file), exactly one, an RSA key of ≥ 2048 bits. */
function readSecretKey(env: Env, problems: string[]): string {
  const inline = env.FIREBLOCKS_SECRET_KEY?.trim();
  const file = env.FIREBLOCKS_SECRET_KEY_PATH?.trim();
  if (inline && file) {
    problems.push('FIREBLOCKS_SECRET_KEY and FIREBLOCKS_SECRET_KEY_PATH are both set: set only one');
    return '';
  }
  if (!inline && !file) {
    problems.push(
      'FIREBLOCKS_API_KEY is set without its key: set FIREBLOCKS_SECRET_KEY_PATH (or FIREBLOCKS_SECRET_KEY)',
    );
    return '';
  }
  const name = inline ? 'FIREBLOCKS_SECRET_KEY' : 'FIREBLOCKS_SECRET_KEY_PATH';
  let pem: string;
  try {
    pem = inline ? inline.replace(/\\n/g, '\n') : readFileSync(file as string, 'utf8');
  } catch (error) {
    problems.push(`${name}: the file cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    return '';
  }
  try {
    const key = createPrivateKey(pem);
    const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
    if (key.asymmetricKeyType !== 'rsa' || bits < 2048) {
      problems.push(`${name} must be an RSA private key of at least 2048 bits (Fireblocks API users sign with RS256)`);
    }
  } catch {
    problems.push(`${name} is not a PEM private key (an RSA key of at least 2048 bits)`);
  }
  return pem;
}

/** FIREBLOCKS_WEBHOOK_PUBLIC_KEY_PATH: Fireblocks' webhook key (one for production workspaces, one for sandboxes). */
function readWebhookKey(env: Env, problems: string[]): string | undefined {
  const file = env.FIREBLOCKS_WEBHOOK_PUBLIC_KEY_PATH?.trim();
  if (!file) return undefined;
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (error) {
    problems.push(
      `FIREBLOCKS_WEBHOOK_PUBLIC_KEY_PATH: the file cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
    return undefined;
  }
  try {
    if (createPublicKey(pem).asymmetricKeyType === 'rsa') return pem;
  } catch {}
  problems.push('FIREBLOCKS_WEBHOOK_PUBLIC_KEY_PATH is not an RSA public key in PEM');
  return undefined;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number, problems: string[]): number {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) problems.push(`${name} must be an integer from ${min} to ${max}`);
  return n;
}
