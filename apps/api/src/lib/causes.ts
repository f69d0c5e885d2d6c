/**
 * An error and the errors behind it, outermost first: `error`, its `cause`, that one's `cause`… (viem's
 * `BaseError.walk` does the same for its own errors). Stops at a cycle and after 32 links, so a crafted or
 * self-referencing chain cannot loop.
 */
export function* causes(error: unknown): Generator<CauseLink> {
  const seen = new Set<unknown>();
  for (let e = error; e && typeof e === 'object' && !seen.has(e) && seen.size < 32; e = (e as CauseLink).cause) {
    seen.add(e);
    yield e as CauseLink;
  }
}

/** What the walkers read from a link of a cause chain; every field may be absent. */
export interface CauseLink {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  status?: unknown;
  syscall?: unknown;
  details?: unknown;
  data?: unknown;
  cause?: unknown;
}
