import Type from 'typebox';
import { RequestUuid } from '#api/schemas/requests.ts';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '#api/webhooks/eventTypes.ts';

/** The request fields of an endpoint, shared by create-webhook-endpoint and update-webhook-endpoint. */
export const EndpointFields = {
  url: Type.String({
    format: 'uri',
    pattern: '^https?://',
    maxLength: 2048,
    description: 'http(s) URL that receives the webhooks (the same URL policy as a subscription’s `webhookURL`).',
  }),
  description: Type.String({ maxLength: 512, description: 'A note for you (at most 512 characters).' }),
  eventTypes: Type.Array(Type.Unsafe<WebhookEventType>({ type: 'string', enum: [...WEBHOOK_EVENT_TYPES] }), {
    minItems: 1,
    maxItems: WEBHOOK_EVENT_TYPES.length,
    description: `The types of webhook to receive, at least one of: ${WEBHOOK_EVENT_TYPES.map((t) => `\`${t}\``).join(', ')}.`,
  }),
  subscriptionIds: Type.Array(RequestUuid('A subscription of the project.'), {
    maxItems: 100,
    description:
      'Only the `event_notifier.*` webhooks of these subscriptions (at most 100). Absent or empty: of every subscription.',
  }),
  enabled: Type.Boolean({ description: 'Whether webhooks are sent (default true).' }),
};
