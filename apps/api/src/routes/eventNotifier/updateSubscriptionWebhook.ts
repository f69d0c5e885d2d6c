import Type from 'typebox';
import { assertWebhookUrlAllowed } from '#api/delivery/webhookUrlPolicy.ts';
import { validationError } from '#api/errors/ApiError.ts';
import { defaultEventNotifierSettings } from '#api/eventNotifier/settings.ts';
import { updateWebhook } from '#api/eventNotifier/subscriptions/subscriptions.ts';
import { projectOf, WRITERS } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { EventNotifierSubscription } from '#api/schemas/entities.ts';
import { EXAMPLE, exampleSubscription } from '#api/schemas/examples.ts';
import { RequestUuid, WebhookMaxRetries, WebhookUrl } from '#api/schemas/requests.ts';

export default defineRoute({
  method: 'POST',
  url: '/event-notifier/update-subscription-webhook',
  operationId: 'update-subscription-webhook',
  tag: 'Event Notifier',
  summary: 'Change a subscription’s webhook',
  description:
    'Enables or disables delivery, changes the URL or the number of retries. Fields you leave out keep their value. While a webhook is disabled, new records stay `scanned`.',
  auth: { roles: WRITERS },
  body: Type.Object(
    {
      id: RequestUuid('The subscription id.'),
      webhookEnabled: Type.Optional(Type.Boolean()),
      webhookURL: Type.Optional(WebhookUrl),
      webhookMaxRetries: Type.Optional(WebhookMaxRetries),
    },
    { additionalProperties: false },
  ),
  requestExample: { id: EXAMPLE.subscriptionId, webhookEnabled: true, webhookMaxRetries: 8 },
  response: {
    status: 200,
    description: 'The subscription as it now is.',
    schema: Type.Object({ eventNotifierSubscription: EventNotifierSubscription }),
    example: { eventNotifierSubscription: { ...exampleSubscription, webhookMaxRetries: 8 } },
  },
  errors: ['NOT_FOUND', 'WEBHOOK_URL_REFUSED'],
  async handler({ body, principal, deps }) {
    if (body.webhookURL !== undefined) await assertWebhookUrlAllowed(body.webhookURL, deps.delivery);
    const settings = deps.eventNotifier ?? defaultEventNotifierSettings();
    const subscription = await updateWebhook(deps.db, settings, projectOf(principal), body.id, body, () => {
      throw validationError([
        { field: 'body.webhookEnabled', message: 'cannot be true while the subscription has no webhookURL' },
      ]);
    });
    return { eventNotifierSubscription: subscription };
  },
});
