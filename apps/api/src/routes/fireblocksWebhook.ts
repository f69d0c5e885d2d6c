import { createPublicKey } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '#api/errors/ApiError.ts';
import type { AppDeps } from '#api/http/appDeps.ts';
import { createViewApplier } from '#api/transactions/custodyStatus.ts';
import { wakeMonitor } from '#api/transactions/jobs.ts';
import { viewOf } from '#api/wallets/fireblocks/fireblocksSubmitter.ts';
import {
  recordWebhookEvent,
  webhookEventKey,
  webhookEventSeen,
  webhookTimestampRefusal,
} from '#api/wallets/fireblocks/webhookEvents.ts';
import { verifyFireblocksSignature } from '#api/wallets/fireblocks/webhookSignature.ts';

export const FIREBLOCKS_WEBHOOK_PATH = '/webhooks/fireblocks';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TRANSACTION_EVENTS = new Set(['TRANSACTION_CREATED', 'TRANSACTION_STATUS_UPDATED']);

/**
 * `POST /webhooks/fireblocks`, the workspace's webhook URL (v1 webhooks), served only with
 * FIREBLOCKS_WEBHOOK_PUBLIC_KEY_PATH. The raw body's `Fireblocks-Signature` (base64 RSA-SHA512) is verified first:
 * without it, or wrong, 401 and nothing changes. A transaction event whose `externalTxId` is one of our rows moves
 * the row at once, as a poll's answer would (applyCustodianView; a burst of events for one row is applied as one,
 * see createViewApplier), and wakes its wallet's monitor (wakeMonitor) when the row has a new status or hash, or the
 * custodian calls it failed; anything else is answered 200 `ignored` (Fireblocks retries what is not 2xx). A
 * transaction event whose `timestamp` is outside the window (webhookEvents.ts: 6 hours old, 5 minutes ahead) is
 * refused with 400, which Fireblocks does not retry; one already applied (the same transaction id, update time and
 * status) is answered 200 `duplicate` and changes nothing, so a replayed body within the window is harmless too.
 * Webhooks are a hint: polling goes on regardless.
 */
export function registerFireblocksWebhook(app: FastifyInstance, deps: AppDeps): void {
  const fireblocks = deps.custodians?.fireblocks;
  const pem = fireblocks?.settings.webhookPublicKey;
  if (!fireblocks || !pem) return;
  const publicKey = createPublicKey(pem);
  const applyView = createViewApplier(deps.db, fireblocks.submitter.provider);
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      'application/json',
      { parseAs: 'buffer', bodyLimit: deps.bodyLimit },
      (_req, body, done) => done(null, body),
    );
    scope.addContentTypeParser('*', (_req, _payload, done) =>
      done(new ApiError('UNSUPPORTED_MEDIA_TYPE', { contentType: 'other than application/json' })),
    );
    scope.post(FIREBLOCKS_WEBHOOK_PATH, { config: { operation: 'fireblocks-webhook' } }, async (request, reply) => {
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const signature = request.headers['fireblocks-signature'];
      if (!verifyFireblocksSignature(raw, typeof signature === 'string' ? signature : undefined, publicKey)) {
        throw new ApiError('WEBHOOK_SIGNATURE_INVALID');
      }
      let event: { type?: unknown; timestamp?: unknown; data?: Record<string, unknown> };
      try {
        event = JSON.parse(raw.toString('utf8'));
      } catch {
        throw new ApiError('INVALID_JSON');
      }
      const data = event?.data;
      const rowId = typeof data?.externalTxId === 'string' ? data.externalTxId : '';
      if (!TRANSACTION_EVENTS.has(String(event?.type)) || !UUID.test(rowId) || typeof data?.id !== 'string') {
        return reply.code(200).send({ status: 'ignored' });
      }
      const refusal = webhookTimestampRefusal(event.timestamp);
      if (refusal) throw new ApiError('WEBHOOK_TIMESTAMP_REFUSED', { reason: refusal });
      const key = webhookEventKey(data);
      if (await webhookEventSeen(deps.db, key)) return reply.code(200).send({ status: 'duplicate' });
      const { applied: moved, view } = await applyView(rowId, viewOf(data));
      if (moved === undefined) return reply.code(200).send({ status: 'ignored' });
      await recordWebhookEvent(deps.db, key);
      // A custodian's steps before a hash (QUEUED, PENDING_SIGNATURE…) are only shown: waking the monitor for each
      // would cost more than it saves.
      if (moved.moved || view.failed)
        await wakeMonitor(deps.db, { walletId: moved.walletId, networkId: moved.networkId });
      return reply.code(200).send({ status: 'applied' });
    });
  });
}
