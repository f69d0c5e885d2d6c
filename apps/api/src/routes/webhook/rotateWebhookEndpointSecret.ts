import Type from 'typebox';
import { projectOf, WRITERS } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { RequestUuid } from '#api/schemas/requests.ts';
import { EXAMPLE_ENDPOINT_ID, exampleWebhookEndpoint, WebhookEndpoint } from '#api/schemas/webhookEndpoints.ts';
import { rotateEndpointSecret } from '#api/webhooks/endpoints/endpoints.ts';
import { DEFAULT_ROTATION_GRACE_SECONDS, MAX_ROTATION_GRACE_SECONDS } from '#api/webhooks/eventTypes.ts';

export const GraceSeconds = Type.Integer({
  minimum: 0,
  maximum: MAX_ROTATION_GRACE_SECONDS,
  description:
    'How long the previous secret keeps signing beside the new one, in seconds: 0 to 604800 (7 days); 86400 (24 hours) when absent. 0 stops it at once (a leaked secret).',
});

export default defineRoute({
  method: 'POST',
  url: '/webhook/rotate-webhook-endpoint-secret',
  operationId: 'rotate-webhook-endpoint-secret',
  tag: 'Webhook',
  summary: 'Rotate a webhook endpoint’s secret',
  description:
    'A new secret signs every webhook from now on. Until the grace period ends, each webhook carries two signatures (Standard Webhooks’ space-separated `v1,` entries), one per secret, so a receiver that still knows only the previous secret keeps verifying while you deploy the new one. The answer is the only one that shows the new secret in full.',
  auth: { roles: WRITERS },
  body: Type.Object(
    { id: RequestUuid('The endpoint id.'), gracePeriodSeconds: Type.Optional(GraceSeconds) },
    { additionalProperties: false },
  ),
  requestExample: { id: EXAMPLE_ENDPOINT_ID, gracePeriodSeconds: 86_400 },
  response: {
    status: 200,
    description: 'The endpoint with its new secret in full, and until when the previous one signs too.',
    schema: Type.Object({ webhookEndpoint: WebhookEndpoint }),
    example: {
      webhookEndpoint: {
        ...exampleWebhookEndpoint,
        secret: 'whsec_3q2+7wLk0v0tS8yO5zH1mR4cX9bN6aP2',
        previousSecretExpiresAt: '2026-11-21T10:15:30.000Z',
      },
    },
  },
  errors: ['NOT_FOUND'],
  async handler({ body, principal, deps }) {
    const grace = body.gracePeriodSeconds ?? DEFAULT_ROTATION_GRACE_SECONDS;
    return {
      webhookEndpoint: await rotateEndpointSecret(deps.db, deps.masterKey, projectOf(principal), body.id, grace),
    };
  },
});
