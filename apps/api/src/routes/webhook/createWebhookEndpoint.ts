import Type from 'typebox';
import { deliverySettingsOf } from '#api/delivery/settings.ts';
import { assertWebhookUrlAllowed } from '#api/delivery/webhookUrlPolicy.ts';
import { projectOf, WRITERS } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { exampleWebhookEndpoint, WebhookEndpoint } from '#api/schemas/webhookEndpoints.ts';
import { createEndpoint } from '#api/webhooks/endpoints/endpoints.ts';
import { EndpointFields } from './endpointFields.ts';

export default defineRoute({
  method: 'POST',
  url: '/webhook/create-webhook-endpoint',
  operationId: 'create-webhook-endpoint',
  tag: 'Webhook',
  summary: 'Create a webhook endpoint',
  description:
    'Adds a URL that receives the project’s webhooks of the chosen event types, signed (Standard Webhooks) with the endpoint’s own secret. The answer is the only one that shows the full `secret`: store it. A project has at most `MAX_WEBHOOK_ENDPOINTS_PER_PROJECT` endpoints (50 by default).',
  auth: { roles: WRITERS },
  body: Type.Object(
    {
      url: EndpointFields.url,
      eventTypes: EndpointFields.eventTypes,
      description: Type.Optional(EndpointFields.description),
      subscriptionIds: Type.Optional(EndpointFields.subscriptionIds),
      enabled: Type.Optional(EndpointFields.enabled),
    },
    { additionalProperties: false },
  ),
  requestExample: {
    url: 'https://example.com/webhooks/mountain',
    eventTypes: ['transaction.succeeded', 'transaction.failed'],
    description: 'Order service',
  },
  response: {
    status: 201,
    description: 'The endpoint, with its secret in full (shown only here and when rotated).',
    schema: Type.Object({ webhookEndpoint: WebhookEndpoint }),
    example: { webhookEndpoint: { ...exampleWebhookEndpoint, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' } },
  },
  errors: ['WEBHOOK_URL_REFUSED', 'WEBHOOK_ENDPOINT_LIMIT_REACHED'],
  async handler({ body, principal, deps }) {
    await assertWebhookUrlAllowed(body.url, deps.delivery, 'body.url');
    const settings = deliverySettingsOf(deps);
    const endpoint = await createEndpoint(
      deps.db,
      deps.masterKey,
      settings.maxWebhookEndpointsPerProject,
      projectOf(principal),
      body,
    );
    return { webhookEndpoint: endpoint };
  },
});
