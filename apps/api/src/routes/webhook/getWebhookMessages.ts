import Type from 'typebox';
import { projectOf } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { ROLES } from '#api/projects/users.ts';
import { EXAMPLE_ENDPOINT_ID } from '#api/schemas/webhookEndpoints.ts';
import { MESSAGE_STATUSES, WebhookMessage } from '#api/schemas/webhookLog.ts';
import { listMessages } from '#api/webhooks/log/listMessages.ts';
import { LogFilters } from './logFilters.ts';

export default defineRoute({
  method: 'GET',
  url: '/webhook/get-webhook-messages',
  operationId: 'get-webhook-messages',
  tag: 'Webhook',
  summary: 'List webhook messages',
  description:
    'The messages of one endpoint (`endpointId`) or of one subscription’s own webhook (`subscriptionId`; its records, whose id is the `webhook-id`), newest first, with their delivery status and attempts. Filter by event type, status and time window; page with `cursor`.',
  auth: { roles: ROLES },
  querystring: Type.Object(
    {
      ...LogFilters,
      status: Type.Optional(
        Type.Unsafe<(typeof MESSAGE_STATUSES)[number]>({ type: 'string', enum: [...MESSAGE_STATUSES] }),
      ),
    },
    { additionalProperties: false },
  ),
  response: {
    status: 200,
    description: 'One page of messages, and the cursor of the next page (`null` on the last).',
    schema: Type.Object({
      webhookMessages: Type.Array(WebhookMessage),
      nextCursor: Type.Union([Type.String(), Type.Null()]),
    }),
    example: {
      webhookMessages: [
        {
          webhookId: '0b9e8d7c-6a5b-4c3d-8e2f-1a0b9c8d7e6f',
          endpointId: EXAMPLE_ENDPOINT_ID,
          subscriptionId: null,
          eventType: 'transaction.succeeded',
          status: 'delivered',
          attempts: 2,
          nextAttemptAt: null,
          createdAt: '2026-11-20T10:15:30.000Z',
        },
      ],
      nextCursor: 'MjAyNi0xMS0yMFQxMDoxNTozMC4wMDAwMDBafDBiOWU4ZDdj',
    },
  },
  errors: ['NOT_FOUND'],
  async handler({ query, principal, deps }) {
    return listMessages(deps.db, projectOf(principal), { ...query, limit: query.limit ?? 50 });
  },
});
