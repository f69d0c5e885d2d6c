import Type from 'typebox';
import { deleteSubscription } from '#api/eventNotifier/subscriptions/deleteSubscription.ts';
import { projectOf, WRITERS } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { EXAMPLE } from '#api/schemas/examples.ts';
import { RequestUuid } from '#api/schemas/requests.ts';

export default defineRoute({
  method: 'POST',
  url: '/event-notifier/delete-subscription',
  operationId: 'delete-subscription',
  tag: 'Event Notifier',
  summary: 'Delete a subscription',
  description:
    'Deletes the subscription: its scanning stops and no webhook of it starts after the answer (to its own URL or ' +
    'to an endpoint), and the subscription, its records, their pending webhooks and their attempt log are gone from ' +
    'every answer. It frees a place under `MAX_SUBSCRIPTIONS_PER_PROJECT`. Deleting cannot be undone: a new ' +
    'subscription from the same block finds the same events again, under new record ids.',
  auth: { roles: WRITERS },
  body: Type.Object({ id: RequestUuid('The subscription id.') }, { additionalProperties: false }),
  requestExample: { id: EXAMPLE.subscriptionId },
  response: {
    status: 200,
    description: 'What was deleted.',
    schema: Type.Object({ message: Type.String() }),
    example: { message: `Subscription ${EXAMPLE.subscriptionId} is deleted` },
  },
  errors: ['NOT_FOUND'],
  async handler({ body, principal, deps }) {
    await deleteSubscription(deps.db, projectOf(principal), body.id);
    return { message: `Subscription ${body.id} is deleted` };
  },
});
