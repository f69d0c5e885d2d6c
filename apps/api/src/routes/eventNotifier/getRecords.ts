import Type from 'typebox';
import { listRecords } from '#api/eventNotifier/subscriptions/records.ts';
import { projectOf } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { ROLES } from '#api/projects/users.ts';
import { EventNotifierRecord, PaginationMeta } from '#api/schemas/entities.ts';
import { EXAMPLE, exampleRecord } from '#api/schemas/examples.ts';
import { pageFields, RequestUuid } from '#api/schemas/requests.ts';

export default defineRoute({
  method: 'POST',
  url: '/event-notifier/get-records',
  operationId: 'get-records',
  tag: 'Event Notifier',
  summary: 'List the events a subscription found',
  description:
    'Lists the subscription’s records, newest first, with their delivery status, one page at a time (1,000 by default). Records whose block a reorg took off the canonical chain are listed with `removed: true`, unless `includeRemoved` is false.',
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
      ...pageFields(1_000, 1_000),
    },
    { additionalProperties: false },
  ),
  requestExample: { subscriptionId: EXAMPLE.subscriptionId },
  response: {
    status: 200,
    description: 'The records.',
    schema: Type.Object({ eventNotifierRecords: Type.Array(EventNotifierRecord), meta: PaginationMeta }),
    example: {
      eventNotifierRecords: [exampleRecord],
      meta: { pageNumber: 1, perPage: 1000, totalPage: 1, totalItems: 1 },
    },
  },
  errors: ['NOT_FOUND'],
  async handler({ body, principal, deps }) {
    return listRecords(deps.db, projectOf(principal), body.subscriptionId, {
      includeRemoved: body.includeRemoved,
      page: body.page ?? 1,
      perPage: body.perPage ?? 1_000,
    });
  },
});
