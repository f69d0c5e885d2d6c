import { type MasterKeys, open } from '#api/crypto/secretBox.ts';
import type { WebhookEventType } from '#api/webhooks/eventTypes.ts';

/** A webhook endpoint as the database holds it. */
export interface EndpointRow {
  id: string;
  project_id: number;
  url: string;
  description: string;
  event_types: WebhookEventType[];
  subscription_ids: string[] | null;
  enabled: boolean;
  secret: Buffer;
  secret_masked: string;
  previous_secret: Buffer | null;
  previous_secret_expires_at: Date | null;
  disabled_reason: string | null;
  disabled_at: Date | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** The secrets are bound to their endpoint: a ciphertext copied to another row does not decrypt. */
export const endpointSecretContext = (id: string) => `webhook-endpoint:${id}`;

/** `whsec_abcd` and asterisks: enough to tell secrets apart, not enough to sign. */
export const maskSecret = (secret: string) => `${secret.slice(0, 10)}${'*'.repeat(16)}`;

/** The secrets that sign the endpoint's webhooks at `now`: the current one, and the previous one in its grace period. */
export function signingSecretsOf(masterKey: MasterKeys, row: EndpointRow, now = new Date()): string[] {
  const context = endpointSecretContext(row.id);
  const secrets = [open(masterKey, row.secret, context)];
  if (row.previous_secret && row.previous_secret_expires_at && row.previous_secret_expires_at > now) {
    secrets.push(open(masterKey, row.previous_secret, context));
  }
  return secrets;
}
