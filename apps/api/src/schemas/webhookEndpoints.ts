import Type from 'typebox';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '#api/webhooks/eventTypes.ts';
import { component } from './components.ts';
import { UuidSchema } from './entities.ts';

const nullable = <T extends Type.TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const DateTime = (description: string) => Type.String({ format: 'date-time', description });

export const WebhookEventTypeSchema = component(
  'WebhookEventType',
  Type.Unsafe<WebhookEventType>({
    type: 'string',
    enum: [...WEBHOOK_EVENT_TYPES],
    description:
      'A type of webhook: a transaction’s status change (`transaction.*`), an event notifier event (`event_notifier.*`), another endpoint of the project disabled after failing (`endpoint.disabled`), or a subscription’s own webhook disabled after failing (`subscription.webhook_disabled`).',
  }),
);

export const WebhookEndpoint = component(
  'WebhookEndpoint',
  Type.Object({
    id: UuidSchema('Endpoint id.'),
    projectId: Type.Integer(),
    url: Type.String({ format: 'uri', description: 'Where the webhooks are sent (POST).' }),
    description: Type.String({ maxLength: 512 }),
    eventTypes: Type.Array(WebhookEventTypeSchema, { description: 'The types of webhook this endpoint receives.' }),
    subscriptionIds: nullable(
      Type.Array(UuidSchema('A subscription id.'), {
        description: 'Only the `event_notifier.*` webhooks of these subscriptions; `null`: of every subscription.',
      }),
    ),
    enabled: Type.Boolean({
      description: 'Whether webhooks are sent. Messages created while disabled are kept, failed, for a replay.',
    }),
    secret: Type.String({
      description:
        'Secret that signs the webhooks (`whsec_…`). In full only in the answers that create or rotate it; masked elsewhere.',
    }),
    previousSecretExpiresAt: nullable(
      DateTime('After a rotation: until when the previous secret also signs every webhook; `null` otherwise.'),
    ),
    disabledReason: nullable(
      Type.String({ description: 'Why the platform disabled the endpoint (sustained failure); `null` otherwise.' }),
    ),
    disabledAt: nullable(DateTime('When the platform disabled the endpoint.')),
    failingSince: nullable(
      DateTime('The first failed attempt since the last delivered one; `null` while attempts succeed.'),
    ),
    createdAt: DateTime('When the endpoint was created.'),
    updatedAt: DateTime('When the endpoint was last changed.'),
  }),
);

export const EXAMPLE_ENDPOINT_ID = '5d2f8a1c-7b3e-4c9d-a0e1-f2b3c4d5e6a7';

export const exampleWebhookEndpoint = {
  id: EXAMPLE_ENDPOINT_ID,
  projectId: 1,
  url: 'https://example.com/webhooks/mountain',
  description: 'Order service',
  eventTypes: ['transaction.succeeded', 'transaction.failed'] as WebhookEventType[],
  subscriptionIds: null,
  enabled: true,
  secret: 'whsec_****************',
  previousSecretExpiresAt: null,
  disabledReason: null,
  disabledAt: null,
  failingSince: null,
  createdAt: '2026-11-20T10:15:30.000Z',
  updatedAt: '2026-11-20T10:15:30.000Z',
};
