// The rate limits' settings, apart from the limiter: the configuration reads them in every process, the admin CLI's
// too, which has no use for the limiter's metrics (prom-client).
import { type Env, parseInteger } from '#api/config/parse.ts';

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

/** RATE_LIMIT_PER_MINUTE, RATE_LIMIT_BURST (default: the per-minute limit) and RATE_LIMIT_AUTH_FAILURES_PER_MINUTE. */
export function parseRateLimitSettings(env: Env, problems: string[]): RateLimitSettings {
  const int = (name: string, fallback: number, min: number) =>
    env[name] === undefined ? fallback : parseInteger(name, env[name] as string, problems, min, 1_000_000_000);
  const perMinute = int('RATE_LIMIT_PER_MINUTE', DEFAULT_RATE_LIMIT.perMinute, 0);
  return Object.freeze({
    perMinute,
    burst: int('RATE_LIMIT_BURST', perMinute || DEFAULT_RATE_LIMIT.burst, 1),
    authFailuresPerMinute: int('RATE_LIMIT_AUTH_FAILURES_PER_MINUTE', DEFAULT_RATE_LIMIT.authFailuresPerMinute, 0),
  });
}
