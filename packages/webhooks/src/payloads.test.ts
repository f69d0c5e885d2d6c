// The SDK's payload types (events.ts) are held to the server's webhook schemas: the types openapi-typescript makes
// of the OpenAPI document's `webhooks` (src/generated/payloads.ts, regenerated here). A field added, removed,
// retyped or made optional on one side, or an event type on one side only, fails typechecking; a document that
// changed without regenerating fails the first test.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { PAYLOADS_FILE, renderPayloads } from '../scripts/generate.ts';
import type { AnyWebhookEvent } from './events.ts';
import type { WebhookEventType } from './eventTypes.ts';
import type { webhooks } from './generated/payloads.ts';

/** The payload the document gives each webhook, by its event type. */
type SchemaPayloads = { [T in keyof webhooks]: webhooks[T]['post']['requestBody']['content']['application/json'] };

/** The SDK's payload of one event type (a payload type may take several), its `type` narrowed to that one. */
type SdkPayload<T extends WebhookEventType> = AnyWebhookEvent extends infer E
  ? E extends { type: infer U }
    ? T extends U
      ? { [K in keyof E]: K extends 'type' ? T : E[K] }
      : never
    : never
  : never;

/** The same shape with every named type and intersection spelled out, so two spellings of one shape compare equal. */
type Spelled<T> = T extends object ? { [K in keyof T]: Spelled<T[K]> } : T;

/** `true` only when A and B are the same type: same fields, same optionality, same types. */
type Same<A, B> = (<T>() => T extends Spelled<A> ? 1 : 2) extends <T>() => T extends Spelled<B> ? 1 : 2 ? true : false;

type Differing = {
  [T in WebhookEventType]: Same<SdkPayload<T>, SchemaPayloads[T]> extends true ? never : T;
}[WebhookEventType];

test('src/generated/payloads.ts is what openapi-typescript makes of the current OpenAPI document', async () => {
  const committed = readFileSync(PAYLOADS_FILE, 'utf8');
  assert.match(committed.split('\n')[0] ?? '', /^\/\/ @generated /);
  assert.ok(
    committed === (await renderPayloads()),
    'src/generated/payloads.ts is stale: run `npm run generate -w @mountain/webhook-sdk` and commit it',
  );
});

test('every payload type of the SDK has the fields of the server’s schema for its event type', () => {
  // Fails typechecking when they differ: `Differing` names the event types whose payloads differ.
  const differing: [Differing] extends [never] ? 'none' : Differing = 'none';
  assert.equal(differing, 'none');
});

test('the SDK and the document know the same event types', () => {
  const same: Same<keyof webhooks, WebhookEventType> = true;
  assert.equal(same, true);
});
