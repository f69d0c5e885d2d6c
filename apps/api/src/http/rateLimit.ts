import { createHash } from 'node:crypto';
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

function refuse(decision: BucketDecision, limit: 'credential' | 'auth_failures' | 'link_exchanges'): ApiError {
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

/** How long a credential this process found valid is let through to its look-up while its address is held. */
const VERIFIED_MS = 10 * 60_000;
/** The most credentials remembered as verified; the oldest is forgotten first. */
const MAX_VERIFIED = 10_000;

const fingerprint = (credential: string) => createHash('sha256').update(credential).digest('base64url');

/**
 * Per-credential rate limiting, shared by every API process through PostgreSQL (see tokenBuckets.ts), plus a
 * limit on requests that authentication refuses, per client address: those have no credential to count against.
 * Sign-in link exchanges, which carry no credential either, count per address in a bucket of their own, so that
 * refused requests from an address do not stop its people from signing in.
 */
export function createRateLimiter(db: Db, settings: RateLimitSettings) {
  const buckets = createTokenBuckets(db);
  const credential: BucketPolicy = { capacity: settings.burst, perSecond: settings.perMinute / 60 };
  const refused: BucketPolicy = {
    capacity: settings.authFailuresPerMinute,
    perSecond: settings.authFailuresPerMinute / 60,
  };
  // Fingerprints (SHA-256) of the API keys this process found valid lately, and until when they count.
  const verified = new Map<string, number>();

  return {
    /** Counts an authenticated request; throws `RATE_LIMITED` when its credential's bucket is empty. */
    async admit(principal: Principal, reply: FastifyReply): Promise<void> {
      if (settings.perMinute === 0) return;
      const decision = await buckets.consume(credentialKey(principal), credential);
      setHeaders(reply, decision);
      if (!decision.allowed) throw refuse(decision, 'credential');
    },
    /**
     * Asked before a credential is looked up in the database: while the client's address has no refusals left (as
     * this process last saw its bucket), `RATE_LIMITED` at once, so that guesses cost no look-up. A credential this
     * process found valid in the last ten minutes is still looked up (and so still checked against revocation).
     */
    beforeLookup(request: FastifyRequest, reply: FastifyReply, given: string): void {
      if (settings.authFailuresPerMinute === 0) return;
      const held = buckets.held(`refused:${request.ip}`, refused);
      if (!held) return;
      const until = verified.get(fingerprint(given));
      if (until !== undefined && until > Date.now()) return;
      setHeaders(reply, held);
      throw refuse(held, 'auth_failures');
    },
    /** A credential the look-up found valid: let through to its look-up while its address is held (beforeLookup). */
    verified(given: string): void {
      if (settings.authFailuresPerMinute === 0) return;
      const key = fingerprint(given);
      verified.delete(key);
      verified.set(key, Date.now() + VERIFIED_MS);
      if (verified.size > MAX_VERIFIED) verified.delete(verified.keys().next().value as string);
    },
    /**
     * Counts a request that authentication refused (401, 403, or no project chosen) against its client address.
     * Past the limit, such requests answer 429 instead; requests with valid credentials are not counted (but an API
     * key this process has not found valid lately waits with the address: beforeLookup).
     */
    async refused(request: FastifyRequest, reply: FastifyReply): Promise<void> {
      if (settings.authFailuresPerMinute === 0) return;
      const decision = await buckets.consume(`refused:${request.ip}`, refused);
      setHeaders(reply, decision);
      if (!decision.allowed) throw refuse(decision, 'auth_failures');
    },
    /**
     * Counts a sign-in link's exchange against its client address, in a bucket of its own of the same size as the
     * refused requests' (RATE_LIMIT_AUTH_FAILURES_PER_MINUTE), before the link is looked up.
     */
    async exchange(request: FastifyRequest, reply: FastifyReply): Promise<void> {
      if (settings.authFailuresPerMinute === 0) return;
      const decision = await buckets.consume(`link:${request.ip}`, refused);
      setHeaders(reply, decision);
      if (!decision.allowed) throw refuse(decision, 'link_exchanges');
    },
    prune: buckets.prune,
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
