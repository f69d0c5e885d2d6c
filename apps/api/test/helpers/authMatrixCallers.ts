// The callers of the authorization matrix (auth.test.ts): every kind of credential, what each must get from an
// operation, and how a refusal is checked. The operations and the fixture they act on are in authMatrix.ts.
import assert from 'node:assert/strict';
import type { ErrorCode } from '#api/errors/catalogue.ts';
import type { RouteDefinition } from '#api/http/route.ts';
import { apiKey, bearer, type CallResult } from '#api-testing/harness.ts';
import type { ActingIn, MatrixFixture } from './authMatrix.ts';

/** An error answer the matrix expects. */
export interface Refusal {
  status: number;
  code: ErrorCode;
}

export type Outcome = Refusal | { actsIn: ActingIn };

export interface Caller {
  name: string;
  /** A short column label for the printed matrix. */
  label: string;
  headers(f: MatrixFixture): Record<string, string>;
  expect(route: RouteDefinition): Outcome;
}

const refuse = (status: number, code: ErrorCode): Refusal => ({ status, code });
const tokenOnly = (route: RouteDefinition, otherwise: Outcome): Outcome =>
  route.auth.accessTokenOnly || route.auth.ownToken ? refuse(403, 'ACCESS_TOKEN_REQUIRED') : otherwise;
/** A valid user token: refused by the key's exchange and its renewal, acting on itself in revoke-access-token. */
const userToken = (route: RouteDefinition, otherwise: Outcome): Outcome =>
  route.auth.apiKeyOnly
    ? refuse(403, 'API_KEY_REQUIRED')
    : route.auth.ownToken === 'apiKey'
      ? refuse(403, 'ACCESS_TOKEN_NOT_RENEWABLE')
      : route.auth.ownToken
        ? { actsIn: 'no project' }
        : otherwise;
const memberOfA = (role: 'reader' | 'editor' | 'admin') => (route: RouteDefinition) =>
  userToken(
    route,
    route.auth.accessTokenOnly || route.auth.roles.includes(role) ? { actsIn: 'A' as const } : refuse(403, 'FORBIDDEN'),
  );

/** Every kind of caller (SPEC §6, and docs/operations/design-decisions.md), and what it gets from each operation. */
export const CALLERS: Caller[] = [
  { name: 'no credentials', label: 'none', headers: () => ({}), expect: () => refuse(401, 'UNAUTHENTICATED') },
  {
    name: 'malformed API key',
    label: 'badKey',
    headers: () => apiKey('not-a-key'),
    expect: () => refuse(401, 'INVALID_API_KEY'),
  },
  {
    name: 'unknown API key',
    label: 'unkKey',
    headers: () => apiKey(`mtn_test_${'A'.repeat(44)}`),
    expect: () => refuse(401, 'INVALID_API_KEY'),
  },
  {
    name: 'revoked (rotated) API key',
    label: 'revKey',
    headers: (f) => apiKey(f.revokedKey),
    expect: () => refuse(401, 'INVALID_API_KEY'),
  },
  {
    name: 'malformed bearer token',
    label: 'badTok',
    headers: () => bearer('abc.def.ghi'),
    expect: () => refuse(401, 'INVALID_ACCESS_TOKEN'),
  },
  {
    name: 'non-bearer authorization',
    label: 'basic',
    headers: () => ({ authorization: 'Basic dXNlcjpwYXNz' }),
    expect: () => refuse(401, 'INVALID_ACCESS_TOKEN'),
  },
  {
    name: 'expired access token',
    label: 'expTok',
    headers: (f) => bearer(f.expiredToken),
    expect: () => refuse(401, 'ACCESS_TOKEN_EXPIRED'),
  },
  {
    name: 'token of a user in no project',
    label: 'noMbr',
    headers: (f) => bearer(f.nonMemberToken),
    expect: (route) =>
      userToken(route, route.auth.accessTokenOnly ? { actsIn: 'no project' } : refuse(403, 'NOT_A_MEMBER')),
  },
  { name: 'reader token', label: 'reader', headers: (f) => bearer(f.tokens.reader), expect: memberOfA('reader') },
  { name: 'editor token', label: 'editor', headers: (f) => bearer(f.tokens.editor), expect: memberOfA('editor') },
  { name: 'admin token', label: 'admTok', headers: (f) => bearer(f.tokens.admin), expect: memberOfA('admin') },
  {
    name: 'admin (project API key)',
    label: 'admKey',
    headers: (f) => apiKey(f.keyA),
    expect: (route) => tokenOnly(route, { actsIn: 'A' }),
  },
  {
    name: "another project's API key",
    label: 'keyB',
    headers: (f) => apiKey(f.keyB),
    expect: (route) => tokenOnly(route, { actsIn: 'B' }),
  },
  {
    name: "another project's API key with X-Project-Id of A",
    label: 'keyB+A',
    headers: (f) => ({ ...apiKey(f.keyB), 'x-project-id': String(f.projectA) }),
    expect: (route) => tokenOnly(route, { actsIn: 'B' }),
  },
  {
    name: 'token of an admin of another project only',
    label: 'tokB',
    headers: (f) => bearer(f.tokenOfB),
    expect: (route) => userToken(route, { actsIn: 'B' }),
  },
  {
    name: 'token of an admin of another project only, X-Project-Id of A',
    label: 'tokB+A',
    // A token of its own (the same user's): revoke-access-token ends the one of the caller before.
    headers: (f) => ({ ...bearer(f.otherTokenOfB), 'x-project-id': String(f.projectA) }),
    expect: (route) => userToken(route, route.auth.accessTokenOnly ? { actsIn: 'B' } : refuse(403, 'NOT_A_MEMBER')),
  },
  {
    name: "token exchanged for A's API key",
    label: 'keyTok',
    headers: (f) => bearer(f.keyTokenA),
    expect: (route) =>
      route.auth.apiKeyOnly
        ? refuse(403, 'API_KEY_REQUIRED')
        : route.auth.accessTokenOnly
          ? refuse(403, 'ACCESS_TOKEN_REQUIRED')
          : route.auth.ownToken
            ? { actsIn: 'no project' }
            : { actsIn: 'A' },
  },
];

export function describeOutcome(outcome: Outcome): string {
  return 'actsIn' in outcome
    ? outcome.actsIn === 'no project'
      ? 'allowed, no project'
      : `allowed in project ${outcome.actsIn}`
    : `${outcome.status} ${outcome.code}`;
}

/** Asserts a refusal: status, code, and for FORBIDDEN the roles the operation requires. */
export function assertRefusal(res: CallResult, expected: Refusal, route: RouteDefinition): void {
  assert.equal(res.status, expected.status, JSON.stringify(res.body));
  assert.equal(res.body.code, expected.code);
  if (expected.code === 'FORBIDDEN') {
    assert.deepEqual(res.body.requiredRoles, [...route.auth.roles]);
    assert.equal(res.body.message, `This operation requires one of the roles: ${route.auth.roles.join(', ')}`);
  }
}
