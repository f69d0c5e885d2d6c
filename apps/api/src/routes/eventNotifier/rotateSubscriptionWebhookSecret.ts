import Type from 'typebox';
import { defaultEventNotifierSettings } from '#api/eventNotifier/settings.ts';
import { rotateSubscriptionSecret } from '#api/eventNotifier/subscriptions/rotateSecret.ts';
import { projectOf, WRITERS } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { EventNotifierSubscription } from '#api/schemas/entities.ts';
import { EXAMPLE, exampleSubscription } from '#api/schemas/examples.ts';
import { RequestUuid } from '#api/schemas/requests.ts';
import { DEFAULT_ROTATION_GRACE_SECONDS } from '#api/webhooks/eventTypes.ts';
import { GraceSeconds } from '../webhook/rotateWebhookEndpointSecret.ts';

export default defineRoute({
  method: 'POST',
  url: '/event-notifier/rotate-subscription-webhook-secret',
  operationId: 'rotate-subscription-webhook-secret',
  tag: 'Event Notifier',
  summary: 'Rotate a subscription’s webhook secret',
  description:
    'A new `webhookSecret` signs every webhook of the subscription from now on. Until the grace period ends, each webhook carries two signatures (Standard Webhooks’ space-separated `v1,` entries), one per secret, so a receiver that still knows only the previous secret keeps verifying. The answer is the only one that shows the new secret in full.',
  auth: { roles: WRITERS },
  body: Type.Object(
    { id: RequestUuid('The subscription id.'), gracePeriodSeconds: Type.Optional(GraceSeconds) },
    { additionalProperties: false },
  ),
  requestExample: { id: EXAMPLE.subscriptionId, gracePeriodSeconds: 86_400 },
  response: {
    status: 200,
    description: 'The subscription with its new secret in full, and until when the previous one signs too.',
    schema: Type.Object({
      eventNotifierSubscription: EventNotifierSubscription,
      previousWebhookSecretExpiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
        description: 'Until when the previous secret also signs; `null` with a grace period of 0.',
      }),
    }),
    example: {
      eventNotifierSubscription: { ...exampleSubscription, webhookSecret: 'whsec_3q2+7wLk0v0tS8yO5zH1mR4cX9bN6aP2' },
      previousWebhookSecretExpiresAt: '2026-11-21T10:15:30.000Z',
    },
  },
  errors: ['NOT_FOUND'],
  async handler({ body, principal, deps }) {
    const settings = deps.eventNotifier ?? defaultEventNotifierSettings();
    const { previousWebhookSecretExpiresAt, ...subscription } = await rotateSubscriptionSecret(
      deps.db,
      deps.masterKey,
      settings,
      projectOf(principal),
      body.id,
      body.gracePeriodSeconds ?? DEFAULT_ROTATION_GRACE_SECONDS,
    );
    return { eventNotifierSubscription: subscription, previousWebhookSecretExpiresAt };
  },
});
