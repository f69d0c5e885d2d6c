import { generateSecret } from '@mountain/webhook-sdk';
import { type MasterKeys, seal } from '#api/crypto/secretBox.ts';
import type { Db } from '#api/db/db.ts';
import { type SubscriptionRow, secretContext } from '#api/eventNotifier/rows.ts';
import { findSubscription, type SubscriptionView, toSubscriptionView, type ViewSettings } from './subscriptions.ts';

/**
 * A new `webhookSecret` signs at once; the current one keeps signing beside it for `graceSeconds` (0: not at all).
 * The answer shows the new secret in full, and until when the previous one signs.
 */
export async function rotateSubscriptionSecret(
  db: Db,
  masterKey: MasterKeys,
  settings: ViewSettings,
  projectId: number,
  id: string,
  graceSeconds: number,
): Promise<SubscriptionView & { previousWebhookSecretExpiresAt: string | null }> {
  const secret = generateSecret();
  const row = await db.transaction(async (client) => {
    await findSubscription(client, projectId, id, { forUpdate: true });
    const { rows } = await client.query<SubscriptionRow>(
      `UPDATE event_notifier_subscriptions
          SET previous_webhook_secret = CASE WHEN $4 > 0 THEN webhook_secret END,
              previous_webhook_secret_expires_at = CASE WHEN $4 > 0 THEN now() + $4 * interval '1 second' END,
              webhook_secret = $2, webhook_secret_masked = $3
        WHERE id = $1 RETURNING *`,
      [id, seal(masterKey, secret, secretContext(id)), `${secret.slice(0, 10)}${'*'.repeat(16)}`, graceSeconds],
    );
    return rows[0] as SubscriptionRow;
  });
  return {
    ...toSubscriptionView(row, settings, secret),
    previousWebhookSecretExpiresAt: row.previous_webhook_secret_expires_at?.toISOString() ?? null,
  };
}
