// The rate limits' settings, apart from the limiter: the configuration reads them in every process, the admin CLI's
// too, which has no use for the limiter's metrics (prom-client).
import { code, type Env, parseInteger, type VariableDefinition } from '#api/config/parse.ts';

export interface RateLimitSettings {
  /** Requests per minute of one credential (an API key, or a user in a project); 0 turns the limit off. */
  readonly perMinute: number;
  /** How many requests one credential may send at once: the size of its bucket. */
  readonly burst: number;
  /** Requests refused by authentication per minute from one client address; 0 turns this limit off. */
  readonly authFailuresPerMinute: number;
}

/** High enough that no benchmark or test of one credential meets it; operators lower it (RATE_LIMIT_VARIABLES). */
export const DEFAULT_RATE_LIMIT: RateLimitSettings = Object.freeze({
  perMinute: 60_000,
  burst: 60_000,
  authFailuresPerMinute: 600,
});

/** The rate limits' variables, as the configuration reference lists them. */
export const RATE_LIMIT_VARIABLES: readonly VariableDefinition[] = [
  {
    names: ['RATE_LIMIT_PER_MINUTE'],
    default: code(DEFAULT_RATE_LIMIT.perMinute),
    meaning:
      'Requests per minute of one credential (an API key, or a user in a project), for all API processes together; ' +
      '`0` turns the limit off. Past it: 429 `RATE_LIMITED` with `Retry-After`.',
  },
  {
    names: ['RATE_LIMIT_BURST'],
    default: '`RATE_LIMIT_PER_MINUTE`',
    meaning:
      'Requests one credential may send at once (its token bucket, refilled continuously at the per-minute rate).',
  },
  {
    names: ['RATE_LIMIT_AUTH_FAILURES_PER_MINUTE'],
    default: code(DEFAULT_RATE_LIMIT.authFailuresPerMinute),
    meaning:
      'Requests refused by authentication (401, 403, no project chosen) per minute from one client address, after ' +
      "which that address's refused requests answer 429; `0` turns it off. It is asked before an API key is looked " +
      'up: past it, a key the API process has not accepted in the last ten minutes answers 429 unread (access ' +
      'tokens, whose signature is checked first, go on). Console sign-in link exchanges count per address in a ' +
      'bucket of their own of this size.',
  },
];

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
