import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '#api/db/db.ts';
import { ApiError } from '#api/errors/ApiError.ts';
import { rateLimitRefusals } from '#api/metrics/instruments.ts';
import type { Principal } from './authenticate.ts';
import type { RateLimitSettings } from './rateLimitSettings.ts';
import { type BucketDecision, type BucketPolicy, createTokenBuckets } from './tokenBuckets.ts';

/** The headers every limited answer carries (IETF draft "RateLimit header fields for HTTP"). */
function setHeaders(reply: FastifyReply, decision: BucketDecision): void {
  reply.header('ratelimit-limit', String(decision.limit));
  reply.header('ratelimit-remaining', String(decision.remaining));
  reply.header('ratelimit-reset', String(decision.resetSeconds));
}

function refuse(decision: BucketDecision, limit: 'credential' | 'auth_failures'): ApiError {
  rateLimitRefusals.inc({ limit });
  return new ApiError(
    'RATE_LIMITED',
    { retryAfter: decision.retryAfterSeconds },
    { headers: { 'retry-after': String(decision.retryAfterSeconds) } },
  );
}

function credentialKey(principal: Principal): string {
  switch (principal.kind) {
    case 'apiKey':
      return `key:${principal.apiKeyId}`;
    case 'accessToken':
      return `user:${principal.userId}:${principal.projectId}`;
    case 'user':
      return `user:${principal.userId}`;
    case 'ownToken':
      // The bucket of the key or the user the token acts for.
      return principal.claims.akid !== undefined ? `key:${principal.claims.akid}` : `user:${principal.claims.sub}`;
    case 'anonymous':
      return 'anonymous';
  }
}

/**
 * Per-credential rate limiting, shared by every API process through PostgreSQL (see tokenBuckets.ts), plus a
 * limit on requests that authentication refuses, per client address: those have no credential to count against.
 */
export function createRateLimiter(db: Db, settings: RateLimitSettings) {
  const buckets = createTokenBuckets(db);
  const credential: BucketPolicy = { capacity: settings.burst, perSecond: settings.perMinute / 60 };
  const refused: BucketPolicy = {
    capacity: settings.authFailuresPerMinute,
    perSecond: settings.authFailuresPerMinute / 60,
  };

  return {
    /** Counts an authenticated request; throws `RATE_LIMITED` when its credential's bucket is empty. */
    async admit(principal: Principal, reply: FastifyReply): Promise<void> {
      if (settings.perMinute === 0) return;
      const decision = await buckets.consume(credentialKey(principal), credential);
      setHeaders(reply, decision);
      if (!decision.allowed) throw refuse(decision, 'credential');
    },
    /**
     * Counts a request that authentication refused (401, 403, or no project chosen) against its client address.
     * Past the limit, such requests answer 429 instead; requests with valid credentials are never held back.
     */
    async refused(request: FastifyRequest, reply: FastifyReply): Promise<void> {
      if (settings.authFailuresPerMinute === 0) return;
      const decision = await buckets.consume(`refused:${request.ip}`, refused);
      setHeaders(reply, decision);
      if (!decision.allowed) throw refuse(decision, 'auth_failures');
    },
    prune: buckets.prune,
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
