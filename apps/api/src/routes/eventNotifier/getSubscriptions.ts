import Type from 'typebox';
import { defaultEventNotifierSettings } from '#api/eventNotifier/settings.ts';
import { listSubscriptions } from '#api/eventNotifier/subscriptions/subscriptions.ts';
import { projectOf } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { ROLES } from '#api/projects/users.ts';
import { EventNotifierSubscription, PaginationMeta } from '#api/schemas/entities.ts';
import { exampleSubscription } from '#api/schemas/examples.ts';
import { pageFields } from '#api/schemas/requests.ts';

export default defineRoute({
  method: 'GET',
  url: '/event-notifier/get-subscriptions',
  operationId: 'get-subscriptions',
  tag: 'Event Notifier',
  summary: 'List your event subscriptions',
  description:
    'Lists the project’s subscriptions, newest first, with their scan state, one page at a time (100 by default). Webhook secrets are masked.',
  auth: { roles: ROLES },
  querystring: Type.Object(pageFields(100, 100), { additionalProperties: false }),
  response: {
    status: 200,
    description: 'One page of the project’s subscriptions.',
    schema: Type.Object({ eventNotifierSubscriptions: Type.Array(EventNotifierSubscription), meta: PaginationMeta }),
    example: {
      eventNotifierSubscriptions: [exampleSubscription],
      meta: { pageNumber: 1, perPage: 100, totalPage: 1, totalItems: 1 },
    },
  },
  errors: [],
  async handler({ query, principal, deps }) {
    const settings = deps.eventNotifier ?? defaultEventNotifierSettings();
    return listSubscriptions(deps.db, settings, projectOf(principal), {
      page: query.page ?? 1,
      perPage: query.perPage ?? 100,
    });
  },
});
