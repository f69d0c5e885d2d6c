import { code, type Env, parseInteger, type VariableDefinition } from '#api/config/parse.ts';

/** Which non-public addresses a webhook URL may resolve to. */
export type PrivateAddressAllowance = 'none' | 'loopback' | 'all';

/** Ports from `from` to `to`, both included. */
export type PortRange = readonly [from: number, to: number];

/** The well-known web ports and the unprivileged ones: not SSH, SMTP, DNS and other services on low ports. */
export const DEFAULT_WEBHOOK_PORTS: readonly PortRange[] = Object.freeze([
  [80, 80],
  [443, 443],
  [1024, 65535],
] as const);

/**
 * Tunables of webhook delivery, for both destinations (a project's webhook endpoints and a subscription's own
 * webhook), and of the project's endpoints; read from the configuration (DELIVERY_VARIABLES).
 */
export interface DeliverySettings {
  /**
   * Webhook URLs resolving to non-public addresses (private, loopback, link-local and the other special-purpose
   * ranges) are refused unless allowed here.
   */
  readonly allowPrivateWebhookAddresses: PrivateAddressAllowance;
  /** Ports a webhook URL may use (its scheme's default port when it names none). */
  readonly webhookAllowedPorts: readonly PortRange[];
  /** Per-attempt webhook timeout. */
  readonly webhookTimeoutMs: number;
  /** First retry delay; each next one doubles (with jitter) up to `webhookBackoffMaxMs`. */
  readonly webhookBackoffBaseMs: number;
  readonly webhookBackoffMaxMs: number;
  /** Webhooks in flight at once per delivery run (a subscription's, or an endpoint's batch). */
  readonly deliveryConcurrency: number;
  /** Webhook endpoints a project may have at once. */
  readonly maxWebhookEndpointsPerProject: number;
  /** A destination whose every attempt has failed for this long is disabled. */
  readonly webhookDisableAfterHours: number;
  /** Days the attempt log keeps an attempt. */
  readonly webhookLogRetentionDays: number;
  /** Whether each webhook attempt is written to the attempt log (WEBHOOK_ATTEMPT_LOG: on, or off). */
  readonly webhookAttemptLog: boolean;
}

/** How long a delivery attempt holds the messages it claimed: its timeout, and a margin for recording the outcome. */
export function deliveryLeaseMs(settings: Pick<DeliverySettings, 'webhookTimeoutMs'>): number {
  return settings.webhookTimeoutMs + 30_000;
}

/**
 * The defaults of every deployment, development's too: no webhook URL may resolve to a non-public address. What calls
 * receivers on this machine says so (`npm start`, the tests): `defaultDeliverySettings('loopback')`.
 */
export function defaultDeliverySettings(
  allowPrivateWebhookAddresses: PrivateAddressAllowance = 'none',
): DeliverySettings {
  return Object.freeze({
    allowPrivateWebhookAddresses,
    webhookAllowedPorts: DEFAULT_WEBHOOK_PORTS,
    webhookTimeoutMs: 10_000,
    webhookBackoffBaseMs: 2_000,
    webhookBackoffMaxMs: 3_600_000,
    deliveryConcurrency: 32,
    maxWebhookEndpointsPerProject: 50,
    webhookDisableAfterHours: 120,
    webhookLogRetentionDays: 30,
    webhookAttemptLog: true,
  });
}

/** The delivery settings of a worker or an API: the configuration's, or the defaults (no private address). */
export const deliverySettingsOf = (deps: { delivery?: DeliverySettings | undefined }): DeliverySettings =>
  deps.delivery ?? defaultDeliverySettings();

const DEFAULTS = defaultDeliverySettings();
const portList = (ranges: readonly PortRange[]) =>
  ranges.map(([from, to]) => (from === to ? String(from) : `${from}-${to}`)).join(',');

/** Webhook delivery's variables, as the configuration reference lists them. */
export const DELIVERY_VARIABLES: readonly VariableDefinition[] = [
  {
    names: ['WEBHOOK_ALLOW_PRIVATE_ADDRESSES'],
    default: `${code(DEFAULTS.allowPrivateWebhookAddresses)} (\`npm start\` and the tests: ${code('loopback')})`,
    meaning:
      'Which non-public addresses webhook URLs may resolve to: `none`, `loopback` or `all`. Non-public means any ' +
      'range of the IANA special-purpose registries (private, loopback, link-local, CGNAT `100.64.0.0/10`, ' +
      '`192.0.0.0/24`, documentation, benchmarking, multicast, reserved, unique-local…), also when embedded in an ' +
      'IPv6 transition address (IPv4-mapped, IPv4-translated, IPv4-compatible, NAT64, 6to4, Teredo), and IPv6 ' +
      'outside `2000::/3`. Others are refused with 400 `WEBHOOK_URL_REFUSED` (the reason names the kind of address, ' +
      'not the address), and checked again when each delivery connects.',
  },
  {
    names: ['WEBHOOK_ALLOWED_PORTS'],
    default: code(portList(DEFAULT_WEBHOOK_PORTS)),
    meaning:
      "Ports webhook URLs may use (a URL without one uses its scheme's, 80 or 443): a comma-separated list of ports " +
      'and ranges such as `443,8000-8999`. Others are refused with 400 `WEBHOOK_URL_REFUSED`, and a stored URL on a ' +
      'port no longer allowed fails its deliveries.',
  },
  {
    names: ['WEBHOOK_TIMEOUT_MS'],
    default: code(DEFAULTS.webhookTimeoutMs),
    meaning: 'Time a webhook receiver has to answer one attempt (100 to 120,000).',
  },
  {
    names: ['WEBHOOK_BACKOFF_BASE_MS', 'WEBHOOK_BACKOFF_MAX_MS'],
    default: `${code(DEFAULTS.webhookBackoffBaseMs)} / ${code(DEFAULTS.webhookBackoffMaxMs)}`,
    meaning:
      'First retry delay, doubling per retry with jitter, up to the maximum; a longer `Retry-After` on 429/503 is ' +
      'honoured up to the maximum.',
  },
  {
    names: ['WEBHOOK_CONCURRENCY'],
    default: code(DEFAULTS.deliveryConcurrency),
    meaning: 'Webhooks in flight at once per subscription and worker.',
  },
  {
    names: ['MAX_WEBHOOK_ENDPOINTS_PER_PROJECT'],
    default: code(DEFAULTS.maxWebhookEndpointsPerProject),
    meaning:
      'Webhook endpoints a project may have at once; one more is refused with 409 `WEBHOOK_ENDPOINT_LIMIT_REACHED`.',
  },
  {
    names: ['WEBHOOK_LOG_RETENTION_DAYS'],
    default: code(DEFAULTS.webhookLogRetentionDays),
    meaning:
      'Days the webhook attempt log and messages are kept (1 to 3,650); `webhook:purge-log` deletes older ones every ' +
      'hour, 5,000 rows a statement.',
  },
  {
    names: ['WEBHOOK_ATTEMPT_LOG'],
    default: code(DEFAULTS.webhookAttemptLog ? 'on' : 'off'),
    meaning:
      "`off` writes no attempt to the attempt log (its list and the statistics' attempt counts stay empty); " +
      'messages, retries, replay and auto-disable work the same. Its cost when on is measured by ' +
      '`npm run bench:events`.',
  },
  {
    names: ['WEBHOOK_DISABLE_AFTER_HOURS'],
    default: code(DEFAULTS.webhookDisableAfterHours),
    meaning:
      "A webhook endpoint, or a subscription's own webhook, whose every attempt has failed for this many hours " +
      "(1 to 8,760) is disabled, and the project's endpoints that take its notice (`endpoint.disabled` for an " +
      "endpoint, `subscription.webhook_disabled` for a subscription's webhook) are told.",
  },
];

/** The WEBHOOK_* variables and MAX_WEBHOOK_ENDPOINTS_PER_PROJECT; problems go to `problems`. */
export function parseDeliverySettings(env: Env, problems: string[]): DeliverySettings {
  const defaults = defaultDeliverySettings();
  const allowance = env.WEBHOOK_ALLOW_PRIVATE_ADDRESSES ?? defaults.allowPrivateWebhookAddresses;
  if (!['none', 'loopback', 'all'].includes(allowance)) {
    problems.push(`WEBHOOK_ALLOW_PRIVATE_ADDRESSES must be none, loopback or all (got "${allowance}")`);
  }
  const attemptLog = env.WEBHOOK_ATTEMPT_LOG ?? 'on';
  if (!['on', 'off'].includes(attemptLog)) problems.push(`WEBHOOK_ATTEMPT_LOG must be on or off (got "${attemptLog}")`);
  const int = (name: string, fallback: number, min: number, max: number) =>
    env[name] === undefined ? fallback : parseInteger(name, env[name] as string, problems, min, max);
  return Object.freeze({
    allowPrivateWebhookAddresses: allowance as PrivateAddressAllowance,
    webhookAllowedPorts: parseWebhookPorts(env.WEBHOOK_ALLOWED_PORTS, defaults.webhookAllowedPorts, problems),
    webhookTimeoutMs: int('WEBHOOK_TIMEOUT_MS', defaults.webhookTimeoutMs, 100, 120_000),
    webhookBackoffBaseMs: int('WEBHOOK_BACKOFF_BASE_MS', defaults.webhookBackoffBaseMs, 10, 3_600_000),
    webhookBackoffMaxMs: int('WEBHOOK_BACKOFF_MAX_MS', defaults.webhookBackoffMaxMs, 10, 86_400_000),
    deliveryConcurrency: int('WEBHOOK_CONCURRENCY', defaults.deliveryConcurrency, 1, 1_000),
    maxWebhookEndpointsPerProject: int(
      'MAX_WEBHOOK_ENDPOINTS_PER_PROJECT',
      defaults.maxWebhookEndpointsPerProject,
      1,
      10_000,
    ),
    webhookDisableAfterHours: int('WEBHOOK_DISABLE_AFTER_HOURS', defaults.webhookDisableAfterHours, 1, 8_760),
    webhookLogRetentionDays: int('WEBHOOK_LOG_RETENTION_DAYS', defaults.webhookLogRetentionDays, 1, 3_650),
    webhookAttemptLog: attemptLog !== 'off',
  });
}

/** WEBHOOK_ALLOWED_PORTS: a comma-separated list of ports and ranges of ports, such as `80,443,1024-65535`. */
function parseWebhookPorts(value: string | undefined, fallback: readonly PortRange[], problems: string[]) {
  if (value === undefined || value.trim() === '') return fallback;
  const ranges: PortRange[] = [];
  for (const item of value.split(',').map((i) => i.trim())) {
    const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(item);
    const from = Number(match?.[1]);
    const to = Number(match?.[2] ?? match?.[1]);
    if (!match || from < 1 || to > 65535 || from > to) {
      problems.push(
        `WEBHOOK_ALLOWED_PORTS: "${item}" is not a port from 1 to 65535 nor a range of them such as 1024-65535`,
      );
    } else ranges.push([from, to]);
  }
  return Object.freeze(ranges);
}
