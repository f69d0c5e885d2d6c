import Type from 'typebox';
import { defaultEventNotifierSettings } from '#api/eventNotifier/settings.ts';
import { listSubscriptions } from '#api/eventNotifier/subscriptions/subscriptions.ts';
import { projectOf } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { ROLES } from '#api/projects/users.ts';
import { EventNotifierSubscription } from '#api/schemas/entities.ts';
import { exampleSubscription } from '#api/schemas/examples.ts';

export default defineRoute({
  method: 'GET',
  url: '/event-notifier/get-subscriptions',
  operationId: 'get-subscriptions',
  tag: 'Event Notifier',
  summary: 'List your event subscriptions',
  description: 'Lists the project’s subscriptions, newest first, with their scan state. Webhook secrets are masked.',
  auth: { roles: ROLES },
  response: {
    status: 200,
    description: 'The project’s subscriptions.',
    schema: Type.Object({ eventNotifierSubscriptions: Type.Array(EventNotifierSubscription) }),
    example: { eventNotifierSubscriptions: [exampleSubscription] },
  },
  errors: [],
  async handler({ principal, deps }) {
    const settings = deps.eventNotifier ?? defaultEventNotifierSettings();
    return { eventNotifierSubscriptions: await listSubscriptions(deps.db, settings, projectOf(principal)) };
  },
});
