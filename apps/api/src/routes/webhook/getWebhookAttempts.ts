import Type from 'typebox';
import { projectOf } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { ROLES } from '#api/projects/users.ts';
import { EXAMPLE_ENDPOINT_ID } from '#api/schemas/webhookEndpoints.ts';
import { ATTEMPT_OUTCOMES, WebhookAttempt } from '#api/schemas/webhookLog.ts';
import { listAttempts } from '#api/webhooks/log/listAttempts.ts';
import { LogFilters } from './logFilters.ts';

const OUTCOME_FILTERS = [...ATTEMPT_OUTCOMES, 'failed'] as const;

export default defineRoute({
  method: 'GET',
  url: '/webhook/get-webhook-attempts',
  operationId: 'get-webhook-attempts',
  tag: 'Webhook',
  summary: 'List webhook attempts',
  description:
    'The attempt log: every attempt of every webhook of the project, an endpoint’s or a subscription’s own, newest first: when, which message (`webhookId`), the URL, the HTTP status or the failure class, the duration and the first 1 KB of the answer. Filter by endpoint or subscription, event type, outcome (`failed`: every failure class) and time window; page with `cursor`. Attempts are kept `WEBHOOK_LOG_RETENTION_DAYS` (30 by default).',
  auth: { roles: ROLES },
  querystring: Type.Object(
    {
      ...LogFilters,
      outcome: Type.Optional(
        Type.Unsafe<(typeof OUTCOME_FILTERS)[number]>({ type: 'string', enum: [...OUTCOME_FILTERS] }),
      ),
    },
    { additionalProperties: false },
  ),
  response: {
    status: 200,
    description: 'One page of attempts, and the cursor of the next page (`null` on the last).',
    schema: Type.Object({
      webhookAttempts: Type.Array(WebhookAttempt),
      nextCursor: Type.Union([Type.String(), Type.Null()]),
    }),
    example: {
      webhookAttempts: [
        {
          id: '1042',
          webhookId: '0b9e8d7c-6a5b-4c3d-8e2f-1a0b9c8d7e6f',
          endpointId: EXAMPLE_ENDPOINT_ID,
          subscriptionId: null,
          eventType: 'transaction.succeeded',
          url: 'https://example.com/webhooks/mountain',
          attemptedAt: '2026-11-20T10:15:31.000Z',
          outcome: 'http_error',
          httpStatus: 503,
          durationMs: 84,
          response: 'Service Unavailable',
        },
      ],
      nextCursor: null,
    },
  },
  errors: [],
  async handler({ query, principal, deps }) {
    return listAttempts(deps.db, projectOf(principal), { ...query, limit: query.limit ?? 50 });
  },
});
