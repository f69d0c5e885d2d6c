/** A route as `sim.requests` counts it: method and path template without /v1, e.g. 'POST /transactions'. */
export type Route = string;

/** Failures to switch on; each HTTP one may target a route (default: every route). */
export interface FaultSettings {
  /** New transactions end BLOCKED / BLOCKED_BY_POLICY, as the Transaction Authorization Policy blocks them. */
  policyBlock?: boolean;
  /** New transactions end FAILED / INSUFFICIENT_FUNDS before signing. */
  insufficientFunds?: boolean;
  /** New transactions wait in PENDING_AUTHORIZATION until `sim.approve(id)` or `sim.reject(id)`. */
  approvalRequired?: boolean;
  /** The next `count` requests answer 429 (with `Retry-After` only if given: Fireblocks documents none). */
  rateLimited?: { count: number; route?: Route; retryAfterSeconds?: number };
  /** The next `count` requests answer 5xx (500 unless told) and change nothing. */
  serverError?: { count: number; route?: Route; status?: number };
  /** The next `count` requests are carried out (a create is stored), then the connection is destroyed unanswered. */
  lostResponse?: { count: number; route?: Route };
  /** Every connection is reset as it opens, until cleared. */
  unreachable?: boolean;
  /** Answers wait `ms` first. */
  slow?: { ms: number; route?: Route };
}

/** The faults in force; counted ones are used up by the requests they hit. */
export class SimulatorFaults {
  private settings: FaultSettings = {};

  /** Switches on the given faults (the others stay as they are). */
  set(next: FaultSettings): void {
    this.settings = { ...this.settings, ...structuredClone(next) };
  }

  clear(): void {
    this.settings = {};
  }

  get current(): Readonly<FaultSettings> {
    return this.settings;
  }

  /** Uses up one of a counted fault when it targets `route`; says whether it hit. */
  take<K extends 'rateLimited' | 'serverError' | 'lostResponse'>(kind: K, route: Route): FaultSettings[K] | undefined {
    const fault = this.settings[kind];
    if (!fault || fault.count <= 0 || (fault.route && fault.route !== route)) return undefined;
    fault.count--;
    return { ...fault } as FaultSettings[K];
  }

  slowFor(route: Route): number {
    const slow = this.settings.slow;
    return slow && (!slow.route || slow.route === route) ? slow.ms : 0;
  }
}
