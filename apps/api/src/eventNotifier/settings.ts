import { DEFAULT_CONFIRMATIONS, NETWORK_IDS, type NetworkId } from '#api/config/networks.ts';
import { code, type Env, parseInteger, perNetwork, type VariableDefinition } from '#api/config/parse.ts';

/**
 * Tunables of the event notifier, read from the configuration (EVENT_NOTIFIER_VARIABLES). How its
 * webhooks are sent (timeouts, retries, the URL policy) is the delivery's: delivery/settings.ts.
 */
export interface EventNotifierSettings {
  /** Blocks below the head a log must be before it is recorded, per network. */
  readonly confirmations: Readonly<Record<NetworkId, number>>;
  /** Widest block range asked of eth_getLogs; halved automatically while the provider refuses. */
  readonly maxBlockRange: number;
  /**
   * How long, at most, a subscription's webhooks wait while it backfills (a scan with more than one block range to
   * read): its records are stored first, then delivered. Past this, deliveries run alongside the rest of the scan.
   */
  readonly backfillHoldMs: number;
  /** Contracts one subscription may watch (`address` and `addresses`, distinct). */
  readonly maxAddressesPerSubscription: number;
  /** Addresses one eth_getLogs request names: a subscription watching more asks in groups. */
  readonly maxAddressesPerRequest: number;
  /** Subscriptions a project may have at once. */
  readonly maxSubscriptionsPerProject: number;
  /** Scans of one project's subscriptions that run at once, across every worker. */
  readonly maxConcurrentScansPerProject: number;
  /** Deliveries (each with up to WEBHOOK_CONCURRENCY webhooks in flight) of one project's subscriptions at once. */
  readonly maxConcurrentDeliveriesPerProject: number;
}

/** The most MAX_ADDRESSES_PER_SUBSCRIPTION may be: what a request's `addresses` may hold at all. */
export const MAX_ADDRESSES_LIMIT = 10_000;

/** How many blocks a subscription wants on top of an event before recording it: its own depth, or its network's. */
export function confirmationsOf(
  settings: Pick<EventNotifierSettings, 'confirmations'>,
  subscription: { network_id: NetworkId; confirmations: number | null },
): number {
  return subscription.confirmations ?? settings.confirmations[subscription.network_id] ?? 0;
}

/** The same in every environment; what differs by environment (the webhook URL policy) is the delivery's. */
export function defaultEventNotifierSettings(
  _env: 'development' | 'test' | 'production' = 'development',
): EventNotifierSettings {
  return Object.freeze({
    confirmations: DEFAULT_CONFIRMATIONS,
    maxBlockRange: 10_000,
    backfillHoldMs: 60_000,
    maxAddressesPerSubscription: 1_000,
    maxAddressesPerRequest: 1_000,
    maxSubscriptionsPerProject: 100,
    maxConcurrentScansPerProject: 2,
    maxConcurrentDeliveriesPerProject: 4,
  });
}

const DEFAULTS = defaultEventNotifierSettings();

/** The event notifier's variables, as the configuration reference lists them. */
export const EVENT_NOTIFIER_VARIABLES: readonly VariableDefinition[] = [
  {
    names: ['CONFIRMATIONS_<networkId>'],
    default: perNetwork(DEFAULT_CONFIRMATIONS),
    meaning:
      'The default `confirmations` of a new event subscription (blocks below the head an event must be before it ' +
      'is recorded; subscriptions created before that field follow this value); and, on a node that does not ' +
      'answer the `finalized` block tag, the blocks on top that make a transaction `finalized`.',
  },
  {
    names: ['EVENT_SCAN_MAX_BLOCK_RANGE'],
    default: code(DEFAULTS.maxBlockRange),
    meaning:
      "Widest `eth_getLogs` block range. A provider's refusal that names what works is followed at once (Alchemy's " +
      "and Infura's working range, a range cap stated by QuickNode, Infura or geth, remembered per endpoint for the " +
      'process); any other refusal halves the range; successes grow it back.',
  },
  {
    names: ['WEBHOOK_BACKFILL_HOLD_MS'],
    default: code(DEFAULTS.backfillHoldMs),
    meaning:
      "How long, at most, a backfilling subscription's webhooks wait for its records to be stored (a scan with more " +
      'than one block range to read); `0` sends them while it scans.',
  },
  {
    names: ['MAX_CONCURRENT_SCANS_PER_PROJECT', 'MAX_CONCURRENT_DELIVERIES_PER_PROJECT'],
    default: `${code(DEFAULTS.maxConcurrentScansPerProject)} / ${code(DEFAULTS.maxConcurrentDeliveriesPerProject)}`,
    meaning:
      "Scans, and deliveries (each with up to `WEBHOOK_CONCURRENCY` webhooks in flight), of one project's " +
      "subscriptions that run at once, across every worker process: one project's backfills or slow receivers leave " +
      "the other projects their share. A job finding its project's share taken waits a second and tries again. A " +
      "project's webhook endpoints are delivered by one job of the project at a time (64 batches in flight), so they " +
      'take one runner of the delivering lane.',
  },
  {
    names: ['MAX_ADDRESSES_PER_SUBSCRIPTION'],
    default: code(DEFAULTS.maxAddressesPerSubscription),
    meaning:
      'Contracts one event subscription may watch (`address` and `addresses`, distinct; at most 10,000); more are ' +
      'refused with 400 naming `addresses`.',
  },
  {
    names: ['EVENT_SCAN_MAX_ADDRESSES'],
    default: code(DEFAULTS.maxAddressesPerRequest),
    meaning:
      'Addresses one `eth_getLogs` request names. A subscription watching more asks for each range in groups of ' +
      'this many, in one JSON-RPC batch, and merges the answers in chain order: lower it for a provider that caps ' +
      'the address list.',
  },
  {
    names: ['MAX_SUBSCRIPTIONS_PER_PROJECT'],
    default: code(DEFAULTS.maxSubscriptionsPerProject),
    meaning:
      'Event subscriptions a project may have at once; one more is refused with 409 `SUBSCRIPTION_LIMIT_REACHED`.',
  },
];

/** The event notifier's variables (CONFIRMATIONS_<id>, EVENT_SCAN_MAX_BLOCK_RANGE, MAX_*_PER_PROJECT…). */
export function parseEventNotifierSettings(env: Env, problems: string[]): EventNotifierSettings {
  const defaults = defaultEventNotifierSettings();
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
    maxAddressesPerSubscription: int(
      'MAX_ADDRESSES_PER_SUBSCRIPTION',
      defaults.maxAddressesPerSubscription,
      1,
      MAX_ADDRESSES_LIMIT,
    ),
    maxAddressesPerRequest: int('EVENT_SCAN_MAX_ADDRESSES', defaults.maxAddressesPerRequest, 1, MAX_ADDRESSES_LIMIT),
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
