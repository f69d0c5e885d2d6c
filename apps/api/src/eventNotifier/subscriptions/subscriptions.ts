import { generateSecret } from '@mountain/webhook-sdk';
import type { Static } from 'typebox';
import type { NetworkId } from '#api/config/networks.ts';
import { type MasterKeys, seal } from '#api/crypto/secretBox.ts';
import type { Db, Queryable } from '#api/db/db.ts';
import { ApiError } from '#api/errors/ApiError.ts';
import { deliverJob } from '#api/eventNotifier/delivery/jobs.ts';
import { type SubscriptionRow, secretContext } from '#api/eventNotifier/rows.ts';
import { scanJob } from '#api/eventNotifier/scanning/jobs.ts';
import { confirmationsOf, type EventNotifierSettings } from '#api/eventNotifier/settings.ts';
import { type Condition, checkWatch, type Filters, type Watch, watchOf } from '#api/eventNotifier/watch.ts';
import type { EventNotifierSubscription } from '#api/schemas/entities.ts';
import { pageMeta } from '#api/schemas/requests.ts';

export type SubscriptionView = Static<typeof EventNotifierSubscription>;

export const DEFAULT_WEBHOOK_MAX_RETRIES = 5;

/** The deployment's settings a subscription's answer reads: the networks' confirmation depths. */
export type ViewSettings = Pick<EventNotifierSettings, 'confirmations'>;

/** What creating a subscription needs to know of the settings. */
export type CreateSettings = ViewSettings & Partial<Pick<EventNotifierSettings, 'maxSubscriptionsPerProject'>>;

export function toSubscriptionView(
  row: SubscriptionRow,
  settings: ViewSettings,
  fullSecret?: string,
): SubscriptionView {
  return {
    id: row.id,
    projectId: row.project_id,
    subscriptionName: row.subscription_name,
    networkId: row.network_id,
    address: row.address,
    formattedAbiEvent: row.formatted_abi_event,
    addresses: row.addresses,
    formattedAbiEvents: row.formatted_abi_events,
    filters: row.filters,
    conditions: row.conditions,
    rewindFromBlock: row.rewind_from_block,
    scanEnabled: row.scan_enabled,
    initialBlockNumber: row.initial_block_number,
    scanInterval: row.scan_interval,
    confirmations: confirmationsOf(settings, row),
    webhookEnabled: row.webhook_enabled,
    webhookURL: row.webhook_url,
    webhookMaxRetries: row.webhook_max_retries,
    webhookSecret: fullSecret ?? row.webhook_secret_masked,
    webhookDisabledReason: row.webhook_disabled_reason,
    webhookDisabledAt: row.webhook_disabled_at?.toISOString() ?? null,
    webhookFailingSince: row.webhook_failing_since?.toISOString() ?? null,
    scanStatus: row.scan_status,
    lastScannedBlock: row.last_scanned_block,
    lastScannedAt: row.last_scanned_at?.toISOString() ?? null,
    lastScanFailureMessage: row.last_scan_failure_message,
    nextScanAt: row.next_scan_at?.toISOString() ?? null,
  };
}

export interface NewSubscription {
  subscriptionName: string;
  networkId: NetworkId;
  /** What it watches, checked (checkWatch). */
  watch: Watch;
  initialBlockNumber: number;
  scanInterval: number;
  confirmations?: number | undefined;
  webhookURL?: string | undefined;
  webhookMaxRetries?: number | undefined;
}

/** Stores the subscription with a fresh secret and queues its first scan, in one transaction. */
export async function createSubscription(
  db: Db,
  masterKey: MasterKeys,
  settings: CreateSettings,
  projectId: number,
  input: NewSubscription,
): Promise<SubscriptionView> {
  const secret = generateSecret();
  const limit = settings.maxSubscriptionsPerProject ?? 100;
  const row = await db.transaction(async (client) => {
    // The project's row is locked while its subscriptions are counted: two creations at once cannot both pass.
    await client.query('SELECT 1 FROM projects WHERE id = $1 FOR UPDATE', [projectId]);
    const { rows: count } = await client.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM event_notifier_subscriptions WHERE project_id = $1',
      [projectId],
    );
    if ((count[0]?.n ?? 0) >= limit) throw new ApiError('SUBSCRIPTION_LIMIT_REACHED', { projectId, limit });
    const { rows } = await client.query<{ id: string }>('SELECT gen_random_uuid() AS id');
    const id = (rows[0] as { id: string }).id;
    const inserted = await client.query<SubscriptionRow>(
      `INSERT INTO event_notifier_subscriptions
         (id, project_id, subscription_name, network_id, address, formatted_abi_event, initial_block_number,
          scan_interval, webhook_enabled, webhook_url, webhook_max_retries, webhook_secret, webhook_secret_masked,
          confirmations, next_scan_at, addresses, formatted_abi_events, filters, conditions)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, now(), $15, $16, $17, $18)
       RETURNING *`,
      [
        id,
        projectId,
        input.subscriptionName,
        input.networkId,
        input.watch.address,
        input.watch.formattedAbiEvent,
        input.initialBlockNumber,
        input.scanInterval,
        input.webhookURL !== undefined,
        input.webhookURL ?? null,
        input.webhookMaxRetries ?? DEFAULT_WEBHOOK_MAX_RETRIES,
        seal(masterKey, secret, secretContext(id)),
        `${secret.slice(0, 10)}${'*'.repeat(16)}`,
        input.confirmations ?? settings.confirmations[input.networkId] ?? 0,
        input.watch.addresses,
        input.watch.formattedAbiEvents,
        JSON.stringify(input.watch.filters),
        JSON.stringify(input.watch.conditions),
      ],
    );
    await scanJob.enqueue(client, { subscriptionId: id });
    return inserted.rows[0] as SubscriptionRow;
  });
  return toSubscriptionView(row, settings, secret);
}

export async function listSubscriptions(
  db: Db,
  settings: ViewSettings,
  projectId: number,
  { page, perPage }: { page: number; perPage: number },
) {
  const [{ rows }, total] = await Promise.all([
    db.query<SubscriptionRow>(
      `SELECT * FROM event_notifier_subscriptions WHERE project_id = $1 ORDER BY created_at DESC, id
        LIMIT $2 OFFSET $3`,
      [projectId, perPage, (page - 1) * perPage],
    ),
    db.query<{ n: number }>('SELECT count(*)::int AS n FROM event_notifier_subscriptions WHERE project_id = $1', [
      projectId,
    ]),
  ]);
  return {
    eventNotifierSubscriptions: rows.map((row) => toSubscriptionView(row, settings)),
    meta: pageMeta(page, perPage, total.rows[0]?.n ?? 0),
  };
}

/** The project's subscription, or a 404 (another project's subscription is never visible). */
export async function findSubscription(
  client: Queryable,
  projectId: number,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<SubscriptionRow> {
  const { rows } = await client.query<SubscriptionRow>(
    `SELECT * FROM event_notifier_subscriptions WHERE id = $1 AND project_id = $2${options.forUpdate ? ' FOR UPDATE' : ''}`,
    [id, projectId],
  );
  if (!rows[0]) throw new ApiError('NOT_FOUND', { resource: 'Subscription', id });
  return rows[0];
}

export interface WebhookChange {
  webhookEnabled?: boolean | undefined;
  webhookURL?: string | undefined;
  webhookMaxRetries?: number | undefined;
}

/** Applies the change; enabling (or changing) a webhook queues delivery of what is waiting. */
export async function updateWebhook(
  db: Db,
  settings: ViewSettings,
  projectId: number,
  id: string,
  change: WebhookChange,
  onMissingUrl: () => never,
): Promise<SubscriptionView> {
  return db.transaction(async (client) => {
    const current = await findSubscription(client, projectId, id, { forUpdate: true });
    const url = change.webhookURL ?? current.webhook_url;
    // A first URL turns delivery on; otherwise `webhookEnabled` alone decides.
    let enabled = change.webhookEnabled ?? current.webhook_enabled;
    if (change.webhookEnabled === undefined && current.webhook_url === null && change.webhookURL !== undefined) {
      enabled = true;
    }
    if (enabled && url === null) onMissingUrl();
    const { rows } = await client.query<SubscriptionRow>(
      // Enabling a webhook clears what an auto-disable left: its reason and its failure streak.
      `UPDATE event_notifier_subscriptions
          SET webhook_enabled = $2, webhook_url = $3, webhook_max_retries = $4,
              webhook_disabled_reason = CASE WHEN $2 THEN NULL ELSE webhook_disabled_reason END,
              webhook_disabled_at = CASE WHEN $2 THEN NULL ELSE webhook_disabled_at END,
              webhook_failing_since = CASE WHEN $2 THEN NULL ELSE webhook_failing_since END
        WHERE id = $1 RETURNING *`,
      [id, enabled, url, change.webhookMaxRetries ?? current.webhook_max_retries],
    );
    if (enabled) await deliverJob.enqueue(client, { subscriptionId: id });
    return toSubscriptionView(rows[0] as SubscriptionRow, settings);
  });
}

/**
 * Stops a subscription's scanning, or resumes it at once from `lastScannedBlock + 1` (the operators' admin CLI
 * `set-scan`, and `update-subscription-scan` for the project's writers). A scan already running finishes its range
 * and then queues nothing more. False when no subscription has that id.
 */
export async function setScanEnabled(db: Db, id: string, enabled: boolean): Promise<boolean> {
  return db.transaction(async (client) => Boolean(await switchScan(client, id, enabled)));
}

/** setScanEnabled for a project's own subscription: its view as it now is, NOT_FOUND when it is not the project's. */
export async function updateScan(
  db: Db,
  settings: ViewSettings,
  projectId: number,
  id: string,
  enabled: boolean,
): Promise<SubscriptionView> {
  return db.transaction(async (client) => {
    await findSubscription(client, projectId, id, { forUpdate: true });
    return toSubscriptionView((await switchScan(client, id, enabled)) as SubscriptionRow, settings);
  });
}

async function switchScan(client: Queryable, id: string, enabled: boolean): Promise<SubscriptionRow | undefined> {
  const { rows } = await client.query<SubscriptionRow>(
    `UPDATE event_notifier_subscriptions
        SET scan_enabled = $2, next_scan_at = CASE WHEN $2 THEN now() END
      WHERE id = $1 RETURNING *`,
    [id, enabled],
  );
  if (rows[0] && enabled) await scanJob.enqueue(client, { subscriptionId: id });
  return rows[0];
}

export interface SubscriptionChange {
  subscriptionName?: string | undefined;
  scanInterval?: number | undefined;
  confirmations?: number | undefined;
  addresses?: string[] | undefined;
  formattedAbiEvents?: string[] | undefined;
  filters?: Filters | undefined;
  conditions?: Condition[] | undefined;
}

/**
 * Changes what a project's subscription is called, how often it scans and how deep, and what it watches (its
 * other contracts and events, its filters and conditions: each given field replaces the one stored, and the whole
 * watch is checked again, as create-subscription checks it). A scan already running goes on with what it started
 * with; the next one reads the blocks after it with the change. A shorter `scanInterval` brings the next scan
 * forward (never later than one new interval from now). NOT_FOUND when it is not the project's.
 */
export async function updateSubscription(
  db: Db,
  settings: ViewSettings & Pick<EventNotifierSettings, 'maxAddressesPerSubscription'>,
  projectId: number,
  id: string,
  change: SubscriptionChange,
): Promise<SubscriptionView> {
  return db.transaction(async (client) => {
    const current = await findSubscription(client, projectId, id, { forUpdate: true });
    const before = watchOf(current);
    const watch = checkWatch(
      {
        address: before.address,
        formattedAbiEvent: before.formattedAbiEvent,
        addresses: change.addresses ?? before.addresses,
        formattedAbiEvents: change.formattedAbiEvents ?? before.formattedAbiEvents,
        filters: change.filters ?? before.filters,
        conditions: change.conditions ?? before.conditions,
      },
      { maxAddresses: settings.maxAddressesPerSubscription },
    );
    const { rows } = await client.query<SubscriptionRow & { sooner: boolean }>(
      `WITH changed AS (
         UPDATE event_notifier_subscriptions
            SET subscription_name = $2, scan_interval = $3::int4, confirmations = $4, addresses = $5,
                formatted_abi_events = $6, filters = $7, conditions = $8,
                next_scan_at = CASE WHEN scan_enabled AND next_scan_at > now() + $3::int4 * interval '1 second'
                                    THEN now() + $3::int4 * interval '1 second' ELSE next_scan_at END
          WHERE id = $1 RETURNING *)
       SELECT changed.*, changed.next_scan_at IS DISTINCT FROM $9::timestamptz AS sooner FROM changed`,
      [
        id,
        change.subscriptionName ?? current.subscription_name,
        change.scanInterval ?? current.scan_interval,
        change.confirmations ?? current.confirmations,
        watch.addresses,
        watch.formattedAbiEvents,
        JSON.stringify(watch.filters),
        JSON.stringify(watch.conditions),
        current.next_scan_at,
      ],
    );
    const { sooner, ...row } = rows[0] as SubscriptionRow & { sooner: boolean };
    if (sooner && row.next_scan_at) await scanJob.enqueue(client, { subscriptionId: id }, { runAt: row.next_scan_at });
    return toSubscriptionView(row, settings);
  });
}
