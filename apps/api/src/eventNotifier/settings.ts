import { DEFAULT_CONFIRMATIONS, NETWORK_IDS, type NetworkId } from '#api/config/networks.ts';
import { type Env, parseInteger } from '#api/config/parse.ts';

/**
 * Tunables of the event notifier, read from the configuration (see the README's configuration table). How its
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
  /** Subscriptions a project may have at once. */
  readonly maxSubscriptionsPerProject: number;
  /** Scans of one project's subscriptions that run at once, across every worker. */
  readonly maxConcurrentScansPerProject: number;
  /** Deliveries (each with up to WEBHOOK_CONCURRENCY webhooks in flight) of one project's subscriptions at once. */
  readonly maxConcurrentDeliveriesPerProject: number;
}

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
    maxSubscriptionsPerProject: 100,
    maxConcurrentScansPerProject: 2,
    maxConcurrentDeliveriesPerProject: 4,
  });
}

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
