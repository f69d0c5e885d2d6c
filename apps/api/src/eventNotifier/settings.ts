import { DEFAULT_CONFIRMATIONS, type NetworkId } from '#api/config/networks.ts';

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

/** Tunables of the event notifier, read from the configuration (see the README's configuration table). */
export interface EventNotifierSettings {
  /**
   * Webhook URLs resolving to non-public addresses (private, loopback, link-local and the other special-purpose
   * ranges) are refused unless allowed here.
   */
  readonly allowPrivateWebhookAddresses: PrivateAddressAllowance;
  /** Ports a webhook URL may use (its scheme's default port when it names none). */
  readonly webhookAllowedPorts: readonly PortRange[];
  /** Blocks below the head a log must be before it is recorded, per network. */
  readonly confirmations: Readonly<Record<NetworkId, number>>;
  /** Widest block range asked of eth_getLogs; halved automatically while the provider refuses. */
  readonly maxBlockRange: number;
  /** Per-attempt webhook timeout. */
  readonly webhookTimeoutMs: number;
  /** First retry delay; each next one doubles (with jitter) up to `webhookBackoffMaxMs`. */
  readonly webhookBackoffBaseMs: number;
  readonly webhookBackoffMaxMs: number;
  /** Webhooks in flight at once per subscription. */
  readonly deliveryConcurrency: number;
  /**
   * How long, at most, a subscription's webhooks wait while it backfills (a scan with more than one block range to
   * read): its records are stored first, then delivered. Past this, deliveries run alongside the rest of the scan.
   */
  readonly backfillHoldMs: number;
  /** Subscriptions a project may have at once. */
  readonly maxSubscriptionsPerProject: number;
  /** Scans of one project's subscriptions that run at once, across every worker. */
  readonly maxConcurrentScansPerProject: number;
  /** Deliveries (each with up to `deliveryConcurrency` webhooks in flight) of one project that run at once. */
  readonly maxConcurrentDeliveriesPerProject: number;
  /** Webhook endpoints a project may have at once. */
  readonly maxWebhookEndpointsPerProject: number;
  /** An endpoint whose every attempt has failed for this long is disabled. */
  readonly webhookDisableAfterHours: number;
  /** Days the attempt log keeps an attempt. */
  readonly webhookLogRetentionDays: number;
  /** Whether each webhook attempt is written to the attempt log (WEBHOOK_ATTEMPT_LOG: on, or off). */
  readonly webhookAttemptLog: boolean;
}

/** How long a delivery attempt holds the records it claimed: its timeout, and a margin for recording the outcome. */
export function deliveryLeaseMs(settings: Pick<EventNotifierSettings, 'webhookTimeoutMs'>): number {
  return settings.webhookTimeoutMs + 30_000;
}

/** How many blocks a subscription wants on top of an event before recording it: its own depth, or its network's. */
export function confirmationsOf(
  settings: Pick<EventNotifierSettings, 'confirmations'>,
  subscription: { network_id: NetworkId; confirmations: number | null },
): number {
  return subscription.confirmations ?? settings.confirmations[subscription.network_id] ?? 0;
}

export function defaultEventNotifierSettings(
  env: 'development' | 'test' | 'production' = 'development',
): EventNotifierSettings {
  return Object.freeze({
    allowPrivateWebhookAddresses: env === 'production' ? 'none' : 'loopback',
    webhookAllowedPorts: DEFAULT_WEBHOOK_PORTS,
    confirmations: DEFAULT_CONFIRMATIONS,
    maxBlockRange: 10_000,
    webhookTimeoutMs: 10_000,
    webhookBackoffBaseMs: 2_000,
    webhookBackoffMaxMs: 3_600_000,
    deliveryConcurrency: 32,
    backfillHoldMs: 60_000,
    maxSubscriptionsPerProject: 100,
    maxConcurrentScansPerProject: 2,
    maxConcurrentDeliveriesPerProject: 4,
    maxWebhookEndpointsPerProject: 50,
    webhookDisableAfterHours: 120,
    webhookLogRetentionDays: 30,
    webhookAttemptLog: true,
  });
}
