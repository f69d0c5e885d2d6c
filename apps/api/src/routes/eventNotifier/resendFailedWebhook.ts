import Type from 'typebox';
import { resendFailed } from '#api/eventNotifier/subscriptions/records.ts';
import { projectOf, WRITERS } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { component } from '#api/schemas/components.ts';
import { EXAMPLE } from '#api/schemas/examples.ts';
import { RequestUuid } from '#api/schemas/requests.ts';

export const ResendSummary = component(
  'WebhookResendSummary',
  Type.Object({
    subscriptionId: Type.String({ format: 'uuid' }),
    requeuedCount: Type.Integer({ minimum: 0, description: 'How many failed records were queued for delivery again.' }),
    recordIds: Type.Array(Type.String({ format: 'uuid' }), { description: 'The records queued again.' }),
    forced: Type.Boolean({ description: 'Whether `force` was set.' }),
  }),
);

export default defineRoute({
  method: 'POST',
  url: '/event-notifier/resend-failed-webhook',
  operationId: 'resend-failed-webhook',
  tag: 'Event Notifier',
  summary: 'Deliver failed records again',
  description:
    'Queues every `failed` record of the subscription for delivery again, with the same `webhook-id`. Without `force`, nothing is sent while the webhook is disabled. With `force: true`, records are sent even when the webhook is disabled or their retries ran out.',
  auth: { roles: WRITERS },
  body: Type.Object(
    {
      subscriptionId: RequestUuid('The subscription id.'),
      force: Type.Optional(
        Type.Boolean({ description: 'Resend even if the webhook is disabled or max retries were reached.' }),
      ),
    },
    { additionalProperties: false },
  ),
  requestExample: { subscriptionId: EXAMPLE.subscriptionId, force: false },
  response: {
    status: 200,
    description: 'What was queued again.',
    schema: Type.Object({ record: ResendSummary }),
    example: {
      record: {
        subscriptionId: EXAMPLE.subscriptionId,
        requeuedCount: 1,
        recordIds: [EXAMPLE.recordId],
        forced: false,
      },
    },
  },
  errors: ['NOT_FOUND'],
  async handler({ body, principal, deps }) {
    return { record: await resendFailed(deps.db, projectOf(principal), body.subscriptionId, body.force ?? false) };
  },
});
