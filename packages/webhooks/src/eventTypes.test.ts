import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AnyWebhookEvent } from './events.ts';
import {
  EVENT_NOTIFIER_EVENT_TYPES,
  TRANSACTION_EVENT_TYPES,
  WEBHOOK_EVENT_TYPES,
  type WebhookEventType,
} from './eventTypes.ts';

/** `true` only when A and B are the same type (not merely assignable one way). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

test('every event type has a payload type, and every payload type is an event type', () => {
  // Fails typechecking when a type is added to the list without its payload in events.ts, or the reverse.
  const same: Same<AnyWebhookEvent['type'], WebhookEventType> = true;
  assert.equal(same, true);
});

test('the list names each type once, the transaction and event notifier types among them', () => {
  assert.equal(new Set(WEBHOOK_EVENT_TYPES).size, WEBHOOK_EVENT_TYPES.length);
  for (const type of [...TRANSACTION_EVENT_TYPES, ...EVENT_NOTIFIER_EVENT_TYPES]) {
    assert.ok((WEBHOOK_EVENT_TYPES as readonly string[]).includes(type), type);
  }
});
