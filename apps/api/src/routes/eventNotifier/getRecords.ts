import Type from 'typebox';
import { listRecords } from '#api/eventNotifier/subscriptions/records.ts';
import { projectOf } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { ROLES } from '#api/projects/users.ts';
import { EventNotifierRecord } from '#api/schemas/entities.ts';
import { EXAMPLE, exampleRecord } from '#api/schemas/examples.ts';
import { RequestUuid } from '#api/schemas/requests.ts';

export default defineRoute({
  method: 'POST',
  url: '/event-notifier/get-records',
  operationId: 'get-records',
  tag: 'Event Notifier',
  summary: 'List the events a subscription found',
  description:
    'Lists the subscription’s records, newest first, with their delivery status. Records whose block a reorg took off the canonical chain are listed with `removed: true`, unless `includeRemoved` is false.',
  auth: { roles: ROLES },
  body: Type.Object(
    {
      subscriptionId: RequestUuid('The subscription id.'),
      includeRemoved: Type.Optional(
        Type.Boolean({
          description:
            'false leaves out the records a reorg removed (`removed: true`); by default they are listed too.',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  requestExample: { subscriptionId: EXAMPLE.subscriptionId },
  response: {
    status: 200,
    description: 'The records.',
    schema: Type.Object({ eventNotifierRecords: Type.Array(EventNotifierRecord) }),
    example: { eventNotifierRecords: [exampleRecord] },
  },
  errors: ['NOT_FOUND'],
  async handler({ body, principal, deps }) {
    return {
      eventNotifierRecords: await listRecords(deps.db, projectOf(principal), body.subscriptionId, {
        includeRemoved: body.includeRemoved,
      }),
    };
  },
});
