import type { NetworkId } from '#api/config/networks.ts';
import { type MasterKeys, open } from '#api/crypto/secretBox.ts';
import type { Condition, Filters } from './watchValues.ts';

// The event notifier's two tables as the database holds them; every stage (subscriptions, scanning, delivery)
// reads them.

/** A subscription row as the database holds it. */
export interface SubscriptionRow {
  id: string;
  project_id: number;
  subscription_name: string;
  network_id: NetworkId;
  address: string;
  formatted_abi_event: string;
  /** The other contracts and events, beside `address` and `formatted_abi_event`. */
  addresses: string[];
  formatted_abi_events: string[];
  filters: Filters;
  conditions: Condition[];
  /** A rewind asked while a scan ran, applied when the next scan starts. */
  rewind_from_block: number | null;
  rewind_redeliver: boolean;
  scan_enabled: boolean;
  initial_block_number: number;
  scan_interval: number;
  /** NULL: the network's depth (CONFIRMATIONS_<id>). */
  confirmations: number | null;
  webhook_enabled: boolean;
  webhook_url: string | null;
  webhook_max_retries: number;
  webhook_secret: Buffer;
  webhook_secret_masked: string;
  /** During a rotation's grace period: the previous secret, which signs too until it expires. */
  previous_webhook_secret: Buffer | null;
  previous_webhook_secret_expires_at: Date | null;
  /** The first failed attempt since the last delivered one; NULL while attempts succeed. */
  webhook_failing_since: Date | null;
  /** Why and when the platform disabled the webhook (every attempt failed too long); NULL otherwise. */
  webhook_disabled_reason: string | null;
  webhook_disabled_at: Date | null;
  scan_status: 'idle' | 'scanning' | 'failed';
  last_scanned_block: number | null;
  /** The finalized block as of the last look for reorgs; NULL before the first. */
  reorg_floor_block: number | null;
  last_scanned_at: Date | null;
  last_scan_failure_message: string | null;
  next_scan_at: Date | null;
  backfill_started_at: Date | null;
}

export interface RecordRow {
  id: string;
  subscription_id: string;
  status: 'scanned' | 'notified' | 'failed';
  status_changed_at: Date;
  block_timestamp: Date;
  transaction_hash: string;
  block_number: number;
  /** NULL for records stored before block hashes were kept. */
  block_hash: string | null;
  transaction_index: number;
  log_index: number;
  decoded_log: Record<string, unknown>;
  /** NULL: the subscription's `address`. */
  contract_address: string | null;
  /** NULL: the subscription's `formatted_abi_event`. */
  event_signature: string | null;
  last_notification_failed_at: Date | null;
  last_notification_failure_message: string | null;
  notification_failure_count: number;
  round_failures: number;
  round_max_retries: number | null;
  /** When the record's block left the canonical chain. */
  removed_at: Date | null;
  /** Set on a removal notice: the record it removes. */
  removal_of: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The secret is bound to its subscription: a ciphertext copied to another row does not decrypt. */
export const secretContext = (id: string) => `event-notifier-subscription:${id}`;

export function webhookSecretOf(masterKey: MasterKeys, row: SubscriptionRow): string {
  return open(masterKey, row.webhook_secret, secretContext(row.id));
}

/** The secrets that sign the subscription's webhooks at `now`: the current one, and the previous one in its grace. */
export function signingSecretsOfSubscription(masterKey: MasterKeys, row: SubscriptionRow, now = new Date()): string[] {
  const secrets = [webhookSecretOf(masterKey, row)];
  if (
    row.previous_webhook_secret &&
    row.previous_webhook_secret_expires_at &&
    row.previous_webhook_secret_expires_at > now
  ) {
    secrets.push(open(masterKey, row.previous_webhook_secret, secretContext(row.id)));
  }
  return secrets;
}
