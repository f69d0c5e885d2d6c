// The public API of @mountain/webhook-sdk. Anything not exported here is internal and may change.
export { createExpressMiddleware } from './createExpressMiddleware.ts';
export {
  createFastifyPlugin,
  type FastifyInstanceLike,
  type FastifyPluginOptions,
  type FastifyReplyLike,
  type FastifyRequestLike,
} from './createFastifyPlugin.ts';
export { createFetchHandler } from './createFetchHandler.ts';
export { createNodeHandler, type ReportingHandlerOptions } from './createNodeHandler.ts';
export {
  InvalidPayloadError,
  InvalidSecretError,
  InvalidTimestampError,
  MissingHeaderError,
  NoMatchingSignatureError,
  TimestampTooNewError,
  TimestampTooOldError,
  WebhookHandlerError,
  type WebhookHeaderName,
  WebhookVerificationError,
  type WebhookVerificationErrorCode,
} from './errors.ts';
export type {
  AnyWebhookEvent,
  EndpointDisabledEvent,
  EventNotifierEvent,
  EventNotifierEventData,
  EventNotifierEventRemoved,
  SubscriptionWebhookDisabledEvent,
  TransactionEvent,
  TransactionEventData,
  TransactionEventTransaction,
  WebhookEvent,
} from './events.ts';
export {
  DISABLED_EVENT_TYPES,
  EVENT_NOTIFIER_EVENT_TYPES,
  TRANSACTION_EVENT_TYPES,
  WEBHOOK_EVENT_TYPES,
  type WebhookEventType,
} from './eventTypes.ts';
export { generateSecret, type WebhookSecrets } from './secret.ts';
export { type SignedHeaders, type SignParams, sign } from './sign.ts';
export type { ErrorBody, HandlerOptions, WebhookContext, WebhookEventHandler } from './types.ts';
export { type VerifyOptions, verify, type WebhookRequestHeaders } from './verify.ts';
