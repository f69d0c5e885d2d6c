import { generateSecret } from '@mountain/webhook-sdk';
import type { Static } from 'typebox';
import { type MasterKeys, seal } from '#api/crypto/secretBox.ts';
import type { Db, Queryable } from '#api/db/db.ts';
import { ApiError, validationError } from '#api/errors/ApiError.ts';
import type { WebhookEndpoint } from '#api/schemas/webhookEndpoints.ts';
import { endpointQueue } from '#api/webhooks/delivery/jobs.ts';
import type { WebhookEventType } from '#api/webhooks/eventTypes.ts';
import { type EndpointRow, endpointSecretContext, maskSecret } from './endpointRows.ts';

export type EndpointView = Static<typeof WebhookEndpoint>;

export function toEndpointView(row: EndpointRow, fullSecret?: string): EndpointView {
  return {
    id: row.id,
    projectId: row.project_id,
    url: row.url,
    description: row.description,
    eventTypes: row.event_types,
    subscriptionIds: row.subscription_ids,
    enabled: row.enabled,
    secret: fullSecret ?? row.secret_masked,
    previousSecretExpiresAt:
      row.previous_secret_expires_at && row.previous_secret_expires_at > new Date()
        ? row.previous_secret_expires_at.toISOString()
        : null,
    disabledReason: row.disabled_reason,
    disabledAt: row.disabled_at?.toISOString() ?? null,
    failingSince: row.failing_since?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export interface EndpointInput {
  url: string;
  description?: string | undefined;
  eventTypes: WebhookEventType[];
  subscriptionIds?: string[] | null | undefined;
  enabled?: boolean | undefined;
}

/** 400 naming `body.subscriptionIds[i]` when a subscription is not the project's (or does not exist). */
async function assertSubscriptionsOf(client: Queryable, projectId: number, ids: readonly string[] | null | undefined) {
  if (!ids || ids.length === 0) return;
  const { rows } = await client.query<{ id: string }>(
    'SELECT id FROM event_notifier_subscriptions WHERE project_id = $1 AND id = ANY($2::uuid[])',
    [projectId, ids],
  );
  const found = new Set(rows.map((r) => r.id));
  const missing = ids.flatMap((id, i) => (found.has(id) ? [] : [i]));
  if (missing.length > 0) {
    throw validationError(
      missing.map((i) => ({ field: `body.subscriptionIds[${i}]`, message: 'is not a subscription of this project' })),
    );
  }
}

const unique = <T>(items: readonly T[]) => [...new Set(items)];

/** Stores an endpoint with a fresh secret; refused past the project's limit (counted under the project's lock). */
export async function createEndpoint(
  db: Db,
  masterKey: MasterKeys,
  limit: number,
  projectId: number,
  input: EndpointInput,
): Promise<EndpointView> {
  const secret = generateSecret();
  const row = await db.transaction(async (client) => {
    await client.query('SELECT 1 FROM projects WHERE id = $1 FOR UPDATE', [projectId]);
    const { rows: count } = await client.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM webhook_endpoints WHERE project_id = $1',
      [projectId],
    );
    if ((count[0]?.n ?? 0) >= limit) throw new ApiError('WEBHOOK_ENDPOINT_LIMIT_REACHED', { projectId, limit });
    await assertSubscriptionsOf(client, projectId, input.subscriptionIds);
    const { rows: ids } = await client.query<{ id: string }>('SELECT gen_random_uuid() AS id');
    const id = (ids[0] as { id: string }).id;
    const { rows } = await client.query<EndpointRow>(
      `INSERT INTO webhook_endpoints (id, project_id, url, description, event_types, subscription_ids, enabled,
                                      secret, secret_masked)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
      [
        id,
        projectId,
        input.url,
        input.description ?? '',
        unique(input.eventTypes),
        input.subscriptionIds?.length ? unique(input.subscriptionIds) : null,
        input.enabled ?? true,
        seal(masterKey, secret, endpointSecretContext(id)),
        maskSecret(secret),
      ],
    );
    return rows[0] as EndpointRow;
  });
  return toEndpointView(row, secret);
}

/** Every endpoint of the project (at most MAX_WEBHOOK_ENDPOINTS_PER_PROJECT), newest first. */
export async function listEndpoints(db: Db, projectId: number): Promise<EndpointView[]> {
  const { rows } = await db.query<EndpointRow>(
    'SELECT * FROM webhook_endpoints WHERE project_id = $1 ORDER BY created_at DESC, id',
    [projectId],
  );
  return rows.map((row) => toEndpointView(row));
}

/** The project's endpoint, or a 404 (another project's endpoint is never visible). */
export async function findEndpoint(
  client: Queryable,
  projectId: number,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<EndpointRow> {
  const { rows } = await client.query<EndpointRow>(
    `SELECT * FROM webhook_endpoints WHERE id = $1 AND project_id = $2${options.forUpdate ? ' FOR UPDATE' : ''}`,
    [id, projectId],
  );
  if (!rows[0]) throw new ApiError('NOT_FOUND', { resource: 'Webhook endpoint', id });
  return rows[0];
}

export type EndpointChange = Partial<EndpointInput>;

/**
 * Applies the change; fields left out keep their value. Enabling an endpoint the platform disabled clears the
 * reason and its failure streak; what failed meanwhile waits for a replay.
 */
export async function updateEndpoint(
  db: Db,
  projectId: number,
  id: string,
  change: EndpointChange,
): Promise<EndpointView> {
  return db.transaction(async (client) => {
    const current = await findEndpoint(client, projectId, id, { forUpdate: true });
    await assertSubscriptionsOf(client, projectId, change.subscriptionIds);
    const enabling = change.enabled === true && !current.enabled;
    const { rows } = await client.query<EndpointRow>(
      `UPDATE webhook_endpoints
          SET url = $2, description = $3, event_types = $4, subscription_ids = $5, enabled = $6,
              disabled_reason = CASE WHEN $7 OR NOT $6 THEN NULL ELSE disabled_reason END,
              disabled_at = CASE WHEN $7 OR NOT $6 THEN NULL ELSE disabled_at END,
              failing_since = CASE WHEN $7 THEN NULL ELSE failing_since END,
              updated_at = now()
        WHERE id = $1 RETURNING *`,
      [
        id,
        change.url ?? current.url,
        change.description ?? current.description,
        change.eventTypes ? unique(change.eventTypes) : current.event_types,
        change.subscriptionIds === undefined
          ? current.subscription_ids
          : change.subscriptionIds?.length
            ? unique(change.subscriptionIds)
            : null,
        change.enabled ?? current.enabled,
        enabling,
      ],
    );
    // Messages replayed while it was disabled are sent once it is enabled.
    if (enabling) await endpointQueue(client, id);
    return toEndpointView(rows[0] as EndpointRow);
  });
}

/** Deletes the endpoint, its messages' deliveries with it. */
/**
 * Deletes the endpoint, its deliveries (by cascade) and its attempt log. The endpoint's row is locked first, as a
 * delivery's outcome is recorded (see deliverEndpoint.ts), so the two wait for each other instead of deadlocking.
 */
export async function deleteEndpoint(db: Db, projectId: number, id: string): Promise<void> {
  await db.transaction(async (client) => {
    const { rowCount } = await client.query('DELETE FROM webhook_endpoints WHERE id = $1 AND project_id = $2', [
      id,
      projectId,
    ]);
    if (!rowCount) throw new ApiError('NOT_FOUND', { resource: 'Webhook endpoint', id });
    await client.query('DELETE FROM webhook_attempts WHERE endpoint_id = $1 AND project_id = $2', [id, projectId]);
  });
}

/**
 * A new secret signs at once; the current one keeps signing beside it for `graceSeconds` (0: not at all), so a
 * receiver that knows either verifies every webhook until it has switched.
 */
export async function rotateEndpointSecret(
  db: Db,
  masterKey: MasterKeys,
  projectId: number,
  id: string,
  graceSeconds: number,
): Promise<EndpointView> {
  const secret = generateSecret();
  const row = await db.transaction(async (client) => {
    await findEndpoint(client, projectId, id, { forUpdate: true });
    const { rows } = await client.query<EndpointRow>(
      `UPDATE webhook_endpoints
          SET previous_secret = CASE WHEN $4 > 0 THEN secret END,
              previous_secret_expires_at = CASE WHEN $4 > 0 THEN now() + $4 * interval '1 second' END,
              secret = $2, secret_masked = $3, updated_at = now()
        WHERE id = $1 RETURNING *`,
      [id, seal(masterKey, secret, endpointSecretContext(id)), maskSecret(secret), graceSeconds],
    );
    return rows[0] as EndpointRow;
  });
  return toEndpointView(row, secret);
}
