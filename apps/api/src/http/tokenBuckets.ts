import type { Db } from '#api/db/db.ts';

/** A token bucket: `capacity` requests at once, refilled continuously at `perSecond`. */
export interface BucketPolicy {
  capacity: number;
  perSecond: number;
}

/** The outcome of one request against its bucket, with what the RateLimit-* headers report. */
export interface BucketDecision {
  allowed: boolean;
  limit: number;
  /** Whole tokens left after this request. */
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds until the next token, when refused. */
  retryAfterSeconds: number;
}

interface Lease {
  /** Tokens taken from the shared bucket and not used yet by this process. */
  tokens: number;
  /** The shared bucket's tokens right after our take, and when that was. */
  sharedTokens: number;
  takenAt: number;
  /** Unused tokens are given up at this time, so a quiet process does not sit on them. */
  expiresAt: number;
  /** While refused, until when: the next token is not there before. */
  refusedUntil: number;
}

/** How long a process may keep tokens it took ahead. */
const LEASE_MS = 1_000;
/** At most this many tokens are taken ahead, so processes never hold much of a bucket between them. */
const MAX_BATCH = 100;
const PRUNE_EVERY_MS = 60_000;

/**
 * Token buckets shared by every API process through one PostgreSQL row per bucket (`rate_limit_take()`, see
 * migration 004). To keep the database off the hot path, a process takes tokens ahead in batches of 1% of the
 * bucket (at most 100, at least 1) and spends them locally for up to a second; concurrent requests of one bucket
 * wait for one take. So the processes together never let more through than the bucket holds; a batch a process
 * gives up unused is lost, which can refuse a client spread over several processes up to that many tokens early.
 */
export function createTokenBuckets(db: Db, now: () => number = Date.now) {
  const leases = new Map<string, Lease>();
  const takes = new Map<string, Promise<void>>();
  let prunedAt = now();

  async function take(key: string, policy: BucketPolicy): Promise<void> {
    const batch = Math.min(MAX_BATCH, Math.max(1, Math.floor(policy.capacity / 100)));
    const { rows } = await db.query<{ granted: number; tokens: number }>(
      'SELECT granted, tokens FROM rate_limit_take($1, $2, $3, $4)',
      [key, policy.capacity, policy.perSecond, batch],
    );
    const { granted, tokens } = rows[0] as { granted: number; tokens: number };
    const at = now();
    leases.set(key, {
      tokens: granted,
      sharedTokens: tokens,
      takenAt: at,
      expiresAt: at + LEASE_MS,
      refusedUntil: granted > 0 ? 0 : at + Math.ceil(((1 - tokens) / policy.perSecond) * 1000),
    });
    if (at - prunedAt > PRUNE_EVERY_MS) {
      prunedAt = at;
      void prune().catch(() => {});
    }
  }

  function decide(lease: Lease, policy: BucketPolicy, at: number, allowed: boolean): BucketDecision {
    const refilled = Math.min(
      policy.capacity - lease.tokens,
      lease.sharedTokens + ((at - lease.takenAt) / 1000) * policy.perSecond,
    );
    const remaining = allowed ? Math.max(0, Math.floor(refilled + lease.tokens)) : 0;
    return {
      allowed,
      limit: policy.capacity,
      remaining,
      resetSeconds: Math.ceil((policy.capacity - refilled - lease.tokens) / policy.perSecond),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((lease.refusedUntil - at) / 1000)),
    };
  }

  /** Buckets whose rows are full again carry nothing: drop them here and in the database. */
  async function prune(): Promise<void> {
    const at = now();
    for (const [key, lease] of leases) if (lease.expiresAt < at && lease.refusedUntil < at) leases.delete(key);
    await db.query('DELETE FROM rate_limit_buckets WHERE full_at < clock_timestamp()');
  }

  return {
    /**
     * The refusal `key`'s bucket last answered in this process, while it holds (until its next token), without
     * spending a token or asking the database; undefined when this process has not seen the bucket empty.
     */
    held(key: string, policy: BucketPolicy): BucketDecision | undefined {
      const at = now();
      const lease = leases.get(key);
      return lease && at < lease.refusedUntil ? decide(lease, policy, at, false) : undefined;
    },
    /** Spends one token of `key`'s bucket, or says when to come back. */
    async consume(key: string, policy: BucketPolicy): Promise<BucketDecision> {
      for (;;) {
        const at = now();
        const lease = leases.get(key);
        if (lease && lease.tokens >= 1 && at < lease.expiresAt) {
          lease.tokens -= 1;
          return decide(lease, policy, at, true);
        }
        if (lease && at < lease.refusedUntil) return decide(lease, policy, at, false);
        let pending = takes.get(key);
        if (!pending) {
          pending = take(key, policy).finally(() => takes.delete(key));
          takes.set(key, pending);
        }
        await pending;
      }
    },
    prune,
  };
}

export type TokenBuckets = ReturnType<typeof createTokenBuckets>;
