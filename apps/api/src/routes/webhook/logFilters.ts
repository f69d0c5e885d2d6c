import Type from 'typebox';
import { RequestDateTime, RequestUuid } from '#api/schemas/requests.ts';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '#api/webhooks/eventTypes.ts';

/** The filters and paging shared by get-webhook-messages and get-webhook-attempts. */
export const LogFilters = {
  endpointId: Type.Optional(RequestUuid('Only this endpoint’s.')),
  subscriptionId: Type.Optional(RequestUuid('Only this subscription’s own webhook’s.')),
  eventType: Type.Optional(Type.Unsafe<WebhookEventType>({ type: 'string', enum: [...WEBHOOK_EVENT_TYPES] })),
  since: Type.Optional(RequestDateTime('From this time (included).')),
  until: Type.Optional(RequestDateTime('Before this time (excluded).')),
  cursor: Type.Optional(
    Type.String({ maxLength: 200, description: 'The `nextCursor` of the previous page; absent: the first page.' }),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, default: 50, description: 'Items per page (1 to 100; 50 by default).' }),
  ),
};
