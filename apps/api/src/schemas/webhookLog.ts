import Type from 'typebox';
import { component } from './components.ts';
import { UuidSchema } from './entities.ts';
import { WebhookEventTypeSchema } from './webhookEndpoints.ts';

const nullable = <T extends Type.TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const DateTime = (description: string) => Type.String({ format: 'date-time', description });

export const ATTEMPT_OUTCOMES = ['delivered', 'http_error', 'timeout', 'connection_error', 'refused'] as const;
export const MESSAGE_STATUSES = ['pending', 'delivered', 'failed'] as const;

export const WebhookMessage = component(
  'WebhookMessage',
  Type.Object({
    webhookId: UuidSchema('The `webhook-id` of the message, the same on every attempt and replay.'),
    endpointId: nullable(UuidSchema('The endpoint it is sent to.')),
    subscriptionId: nullable(UuidSchema('The subscription whose own webhook it is.')),
    eventType: WebhookEventTypeSchema,
    status: Type.Unsafe<(typeof MESSAGE_STATUSES)[number]>({
      type: 'string',
      enum: [...MESSAGE_STATUSES],
      description:
        'pending: waiting for its next attempt; delivered: answered 2xx; failed: out of retries, or created while the endpoint was disabled (a replay sends it again).',
    }),
    attempts: Type.Integer({ minimum: 0 }),
    nextAttemptAt: nullable(DateTime('When the next attempt is due.')),
    createdAt: DateTime('When the change that caused it was made.'),
  }),
);

export const WebhookAttempt = component(
  'WebhookAttempt',
  Type.Object({
    id: Type.String({ description: 'The attempt’s id.' }),
    webhookId: UuidSchema('The `webhook-id` sent.'),
    endpointId: nullable(UuidSchema('The endpoint attempted.')),
    subscriptionId: nullable(UuidSchema('The subscription whose own webhook was attempted.')),
    eventType: WebhookEventTypeSchema,
    url: Type.String({ description: 'The URL called.' }),
    attemptedAt: DateTime('When the attempt started.'),
    outcome: Type.Unsafe<(typeof ATTEMPT_OUTCOMES)[number]>({
      type: 'string',
      enum: [...ATTEMPT_OUTCOMES],
      description:
        'delivered: a 2xx answer; http_error: another status; timeout: no answer in time; connection_error: no connection; refused: the URL policy refused the address.',
    }),
    httpStatus: nullable(Type.Integer({ description: 'The answer’s status, when there was one.' })),
    durationMs: Type.Integer({ minimum: 0 }),
    response: nullable(Type.String({ description: 'The first 1 KB of the answer’s body, or what went wrong.' })),
  }),
);
