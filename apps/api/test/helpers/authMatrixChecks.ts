// What the authorization matrix asserts of an answer, shared by its operation tables (authMatrix.ts and the tables
// beside it).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { getAddress } from 'viem';
import type { CallResult, Harness } from '#api-testing/harness.ts';
import type { ActingIn, MatrixFixture } from './authMatrix.ts';

export interface MatrixOperation {
  /** A valid request naming project A's objects; `n` is unique per call (fresh addresses, idempotency keys). */
  request(f: MatrixFixture, n: number): { body?: unknown; query?: Record<string, string> };
  /** Asserts the answer of a caller that passed authentication and authorization. */
  check(res: CallResult, f: MatrixFixture, actingIn: ActingIn, h: Harness): void | Promise<void>;
}

export const ok = (res: CallResult, status: number) => assert.equal(res.status, status, JSON.stringify(res.body));
export const ids = (items: { id: unknown }[]) => items.map((i) => i.id);

/**
 * A's object named by id is invisible from project B: 404 NOT_FOUND (the message repeats the id sent), and
 * nothing else of A in the answer.
 */
export function assertNotFoundFromB(res: CallResult, f: MatrixFixture, sentId: string | number): void {
  assert.equal(res.status, 404, JSON.stringify(res.body));
  assert.equal(res.body.code, 'NOT_FOUND');
  assert.match(res.body.message, new RegExp(` ${sentId} was not found$`));
  assertNothingOfA(res.body, f, sentId);
}

/** The serialized answer names no object of A beyond the id the request itself sent. */
export function assertNothingOfA(body: unknown, f: MatrixFixture, sentId?: string | number): void {
  const text = JSON.stringify(body);
  const strip = (s: string) => (sentId === undefined ? s : s.replaceAll(String(sentId), '<sent>'));
  assert.doesNotMatch(strip(text), /Project A|Increments of A|Endpoint of A/);
  for (const id of [f.transactionId, f.subscriptionId, f.endpointId]) {
    if (id !== sentId) assert.ok(!text.includes(id), `answer names ${id} of project A: ${text}`);
  }
  assert.ok(!new RegExp(`"projectId":${f.projectA}\\b`).test(text), `answer names project A: ${text}`);
}

export function randomAddress(): string {
  return getAddress(`0x${randomBytes(20).toString('hex')}`);
}
