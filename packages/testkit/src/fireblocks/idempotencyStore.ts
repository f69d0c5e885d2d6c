/** An answer as sent, to replay. */
export interface StoredAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

interface Entry {
  at: number;
  answer?: StoredAnswer;
  /** The first request with this key is still being answered. */
  pending?: Promise<void>;
  /** Answered 5xx: the key may not be used again. */
  internalError?: boolean;
}

/** Longest Idempotency-Key Fireblocks takes ("a maximum of 40 characters": API Idempotency). */
export const MAX_IDEMPOTENCY_KEY = 40;
/** "The idempotency key is valid for 24 hours" (@fireblocks/ts-sdk, every POST's idempotencyKey). */
const TTL_MS = 24 * 60 * 60 * 1000;

/** Idempotency keys of one workspace: the first answer to each, for 24 hours; bounded. */
export class IdempotencyStore {
  private readonly entries = new Map<string, Entry>();
  constructor(private readonly max = 100_000) {}

  /**
   * What to do with a request carrying `key`: replay a stored answer, refuse after an internal error, or go on (and
   * then call `settle`). A request arriving while the first with that key is answered waits for that answer.
   */
  async begin(
    key: string,
    now = Date.now(),
  ): Promise<
    | { kind: 'replay'; answer: StoredAnswer }
    | { kind: 'refused' }
    | { kind: 'proceed'; settle: (a: StoredAnswer) => void }
  > {
    let entry = this.entries.get(key);
    if (entry && now - entry.at > TTL_MS) {
      this.entries.delete(key);
      entry = undefined;
    }
    if (entry?.pending) {
      await entry.pending;
      return this.begin(key, now);
    }
    if (entry?.internalError) return { kind: 'refused' };
    if (entry?.answer) return { kind: 'replay', answer: entry.answer };
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value as string);
    let release = () => {};
    const fresh: Entry = {
      at: now,
      pending: new Promise<void>((resolve) => {
        release = resolve;
      }),
    };
    this.entries.set(key, fresh);
    return {
      kind: 'proceed',
      settle: (answer) => {
        if (answer.status >= 500) fresh.internalError = true;
        else fresh.answer = answer;
        fresh.pending = undefined;
        release();
      },
    };
  }
}
