import Type from 'typebox';
import { assertWebhookUrlAllowed } from '#api/delivery/webhookUrlPolicy.ts';
import { projectOf, WRITERS } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { RequestUuid } from '#api/schemas/requests.ts';
import { EXAMPLE_ENDPOINT_ID, exampleWebhookEndpoint, WebhookEndpoint } from '#api/schemas/webhookEndpoints.ts';
import { updateEndpoint } from '#api/webhooks/endpoints/endpoints.ts';
import { EndpointFields } from './endpointFields.ts';

export default defineRoute({
  method: 'POST',
  url: '/webhook/update-webhook-endpoint',
  operationId: 'update-webhook-endpoint',
  tag: 'Webhook',
  summary: 'Change a webhook endpoint',
  description:
    'Changes the URL, the event types, the subscriptions, the description, or enables or disables the endpoint. Fields you leave out keep their value; an empty `subscriptionIds` takes every subscription again. Enabling an endpoint the platform disabled clears its `disabledReason`; what failed meanwhile is sent again by `replay-webhook-messages`.',
  auth: { roles: WRITERS },
  body: Type.Object(
    {
      id: RequestUuid('The endpoint id.'),
      url: Type.Optional(EndpointFields.url),
      eventTypes: Type.Optional(EndpointFields.eventTypes),
      description: Type.Optional(EndpointFields.description),
      subscriptionIds: Type.Optional(EndpointFields.subscriptionIds),
      enabled: Type.Optional(EndpointFields.enabled),
    },
    { additionalProperties: false },
  ),
  requestExample: { id: EXAMPLE_ENDPOINT_ID, eventTypes: ['transaction.succeeded', 'transaction.reorged'] },
  response: {
    status: 200,
    description: 'The endpoint as it now is.',
    schema: Type.Object({ webhookEndpoint: WebhookEndpoint }),
    example: {
      webhookEndpoint: { ...exampleWebhookEndpoint, eventTypes: ['transaction.succeeded', 'transaction.reorged'] },
    },
  },
  errors: ['NOT_FOUND', 'WEBHOOK_URL_REFUSED'],
  async handler({ body, principal, deps }) {
    if (body.url !== undefined) await assertWebhookUrlAllowed(body.url, deps.delivery, 'body.url');
    const { id, ...change } = body;
    return { webhookEndpoint: await updateEndpoint(deps.db, projectOf(principal), id, change) };
  },
});
