import type { FastifyRequest } from 'fastify';
import {
  type AccessTokenClaims,
  AccessTokenError,
  type ApiKeyTokenClaims,
  verifyAccessToken,
} from '#api/auth/accessTokens.ts';
import { keyMatches, parseApiKey } from '#api/auth/apiKeys.ts';
import type { Db } from '#api/db/db.ts';
import { ApiError } from '#api/errors/ApiError.ts';
import type { Role } from '#api/projects/users.ts';

export interface RouteAuth {
  /** Roles that may call the operation (SPEC §6). */
  roles: readonly Role[];
  /** Only a user access token is accepted (get-projects); the caller need not pick a project. */
  accessTokenOnly?: boolean;
  /** No credentials at all (exchange-console-link: the link is the credential); each call counts as a link exchange. */
  anonymous?: boolean;
  /** Only the project API key itself (exchange-api-key): a token, even one made from a key, cannot make another. */
  apiKeyOnly?: boolean;
  /**
   * The operation acts on the caller's own access token, in no project: any valid token (revoke-access-token), or
   * only one exchanged for an API key (`'apiKey'`: renew-access-token). An API key is refused.
   */
  ownToken?: 'any' | 'apiKey';
}

/** Who is calling, and in which project with which role. */
export type Principal =
  | { kind: 'apiKey'; apiKeyId: number; projectId: number; role: Role }
  | { kind: 'accessToken'; userId: number; projectId: number; role: Role }
  | { kind: 'user'; userId: number }
  /** The caller's own token, verified and not revoked (RouteAuth.ownToken). */
  | { kind: 'ownToken'; claims: AccessTokenClaims }
  | { kind: 'anonymous' };

export interface AuthDeps {
  db: Db;
  tokenSigningKey: Buffer;
  previousTokenSigningKeys?: readonly Buffer[];
}

/**
 * What the rate limiter says around a look-up of a credential in the database (an API key): `before` may refuse it
 * unread (it throws), `verified` hears of one found valid. An access token is looked up only once its signature
 * verified, which no guess passes, so it is not asked.
 */
export interface LookupGate {
  before(credential: string): void;
  verified(credential: string): void;
}

/**
 * Authenticates a request and checks the route's roles. An `X-API-Key` acts with its project's admin role;
 * a bearer access token acts with its user's role in the chosen project (token claim, else `X-Project-Id`,
 * else the user's only project), and a token exchanged for an API key as that key, in its project only.
 */
export async function authenticate(
  request: FastifyRequest,
  auth: RouteAuth,
  deps: AuthDeps,
  gate?: LookupGate,
): Promise<Principal> {
  if (auth.anonymous) return { kind: 'anonymous' };
  const apiKey = header(request, 'x-api-key');
  const authorization = header(request, 'authorization');
  let principal: Principal;
  if (apiKey !== undefined) {
    principal = await byApiKey(apiKey, deps.db, gate);
    if (auth.accessTokenOnly || auth.ownToken) throw new ApiError('ACCESS_TOKEN_REQUIRED');
  } else if (authorization !== undefined) {
    principal = await byAccessToken(request, authorization, auth, deps);
  } else {
    throw new ApiError('UNAUTHENTICATED');
  }
  if ((principal.kind === 'apiKey' || principal.kind === 'accessToken') && !auth.roles.includes(principal.role)) {
    throw new ApiError('FORBIDDEN', { roles: auth.roles.join(', ') }, { requiredRoles: [...auth.roles] });
  }
  return principal;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function byApiKey(key: string, db: Db, gate: LookupGate | undefined): Promise<Principal> {
  const parsed = parseApiKey(key.trim());
  if (!parsed) throw new ApiError('INVALID_API_KEY');
  gate?.before(key.trim());
  const { rows } = await db.query<{ id: number; project_id: number; secret_hash: Buffer }>(
    'SELECT id, project_id, secret_hash FROM api_keys WHERE lookup_id = $1 AND revoked_at IS NULL',
    [parsed.lookupId],
    'auth-api-key',
  );
  const row = rows[0];
  if (!row || !keyMatches(key.trim(), row.secret_hash)) throw new ApiError('INVALID_API_KEY');
  gate?.verified(key.trim());
  return { kind: 'apiKey', apiKeyId: row.id, projectId: row.project_id, role: 'admin' };
}

async function byAccessToken(
  request: FastifyRequest,
  authorization: string,
  auth: RouteAuth,
  deps: AuthDeps,
): Promise<Principal> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) throw new ApiError('INVALID_ACCESS_TOKEN');
  let claims: AccessTokenClaims;
  try {
    const keys = [deps.tokenSigningKey, ...(deps.previousTokenSigningKeys ?? [])];
    claims = verifyAccessToken(keys, match[1] as string);
  } catch (error) {
    if (error instanceof AccessTokenError && error.reason === 'expired') throw new ApiError('ACCESS_TOKEN_EXPIRED');
    throw new ApiError('INVALID_ACCESS_TOKEN', {}, { cause: error });
  }
  if (claims.akid !== undefined) return byApiKeyToken(request, claims, auth, deps.db);
  const userId = Number(claims.sub);
  // The user's memberships, and no row at all when the user is gone or the token revoked: by its id, or by a
  // revocation of every token the user was issued before (iat is in seconds). One statement, on every request,
  // so a revocation holds on every API process from the moment it commits.
  const { rows } = await deps.db.query<{ project_id: number; role: Role }>(
    `SELECT m.project_id, m.role FROM users u LEFT JOIN memberships m ON m.user_id = u.id
      WHERE u.id = $1
        AND (u.tokens_revoked_before IS NULL OR u.tokens_revoked_before <= to_timestamp($2))
        AND NOT EXISTS (SELECT 1 FROM access_tokens t WHERE t.jti = $3 AND t.revoked_at IS NOT NULL)`,
    [userId, claims.iat, claims.jti],
    'auth-user-memberships',
  );
  if (rows.length === 0) throw new ApiError('INVALID_ACCESS_TOKEN');
  if (auth.apiKeyOnly) throw new ApiError('API_KEY_REQUIRED');
  if (auth.ownToken === 'apiKey') throw new ApiError('ACCESS_TOKEN_NOT_RENEWABLE');
  if (auth.ownToken) return { kind: 'ownToken', claims };
  if (auth.accessTokenOnly) return { kind: 'user', userId };

  const memberships = rows.filter((r) => r.project_id !== null);
  const projectId = chooseProject(request, claims.pid, memberships);
  const membership = memberships.find((m) => m.project_id === projectId);
  if (!membership || (claims.pid !== undefined && claims.pid !== projectId)) {
    throw new ApiError('NOT_A_MEMBER', { projectId });
  }
  return { kind: 'accessToken', userId, projectId, role: membership.role };
}

/**
 * A token exchanged for an API key acts as the key did: admin of the key's project, and only while the key is the
 * project's current one (a rotation ends it) and its session is not revoked. Unlike a user's token, it must be
 * recorded: one the table does not hold (pruned, or never issued) is refused.
 */
async function byApiKeyToken(
  request: FastifyRequest,
  claims: ApiKeyTokenClaims,
  auth: RouteAuth,
  db: Db,
): Promise<Principal> {
  const { rows } = await db.query<{ project_id: number }>(
    `SELECT k.project_id FROM access_tokens t JOIN api_keys k ON k.id = t.api_key_id
      WHERE t.jti = $1 AND t.api_key_id = $2 AND t.revoked_at IS NULL AND k.revoked_at IS NULL AND k.project_id = $3`,
    [claims.jti, claims.akid, claims.pid],
    'auth-api-key-token',
  );
  if (rows.length === 0) throw new ApiError('INVALID_ACCESS_TOKEN');
  if (auth.apiKeyOnly) throw new ApiError('API_KEY_REQUIRED');
  if (auth.ownToken) return { kind: 'ownToken', claims };
  if (auth.accessTokenOnly) throw new ApiError('ACCESS_TOKEN_REQUIRED');
  // Like a user's token issued for one project: it cannot be pointed at another.
  const requested = header(request, 'x-project-id');
  if (requested !== undefined && chooseProject(request, claims.pid, []) !== claims.pid) {
    throw new ApiError('NOT_A_MEMBER', { projectId: Number(requested) });
  }
  return { kind: 'apiKey', apiKeyId: claims.akid, projectId: claims.pid, role: 'admin' };
}

function chooseProject(
  request: FastifyRequest,
  tokenProject: number | undefined,
  memberships: { project_id: number }[],
): number {
  const requested = header(request, 'x-project-id');
  if (requested !== undefined) {
    if (!/^[1-9]\d{0,9}$/.test(requested.trim())) throw new ApiError('INVALID_PROJECT_ID');
    return Number(requested);
  }
  if (tokenProject !== undefined) return tokenProject;
  if (memberships.length === 1) return (memberships[0] as { project_id: number }).project_id;
  if (memberships.length === 0) throw new ApiError('NOT_A_MEMBER', { projectId: '(none)' });
  throw new ApiError('PROJECT_REQUIRED');
}
