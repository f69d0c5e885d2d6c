// The rate limits' settings, apart from the limiter: the configuration reads them in every process, the admin CLI's
// too, which has no use for the limiter's metrics (prom-client).

export interface RateLimitSettings {
  /** Requests per minute of one credential (an API key, or a user in a project); 0 turns the limit off. */
  readonly perMinute: number;
  /** How many requests one credential may send at once: the size of its bucket. */
  readonly burst: number;
  /** Requests refused by authentication per minute from one client address; 0 turns this limit off. */
  readonly authFailuresPerMinute: number;
}

/** High enough that no benchmark or test of one credential meets it; operators lower it (README). */
export const DEFAULT_RATE_LIMIT: RateLimitSettings = Object.freeze({
  perMinute: 60_000,
  burst: 60_000,
  authFailuresPerMinute: 600,
});
