/** Failures to switch on; each may target one action (e.g. 'Sign'), every action when none is named. */
export interface KmsFaultSettings {
  /** The next `count` requests answer ThrottlingException ("Rate exceeded", HTTP 400). */
  throttling?: { count: number; action?: string };
  /** The next `count` requests answer a 5xx (KMSInternalException 500, or ServiceUnavailableException 503). */
  serverError?: { count: number; action?: string; status?: 500 | 503 };
  /** Every answer waits `ms` first (KMS answers a Sign in tens of milliseconds). */
  latency?: { ms: number; action?: string };
  /** Every connection is reset as it opens, until cleared. */
  unreachable?: boolean;
}

/** The faults in force; counted ones are used up by the requests they hit. */
export class KmsFaults {
  private settings: KmsFaultSettings = {};

  set(next: KmsFaultSettings): void {
    this.settings = { ...this.settings, ...structuredClone(next) };
  }

  clear(): void {
    this.settings = {};
  }

  get current(): Readonly<KmsFaultSettings> {
    return this.settings;
  }

  take<K extends 'throttling' | 'serverError'>(kind: K, action: string): KmsFaultSettings[K] | undefined {
    const fault = this.settings[kind];
    if (!fault || fault.count <= 0 || (fault.action && fault.action !== action)) return undefined;
    fault.count--;
    return { ...fault } as KmsFaultSettings[K];
  }

  latencyFor(action: string): number {
    const latency = this.settings.latency;
    return latency && (!latency.action || latency.action === action) ? latency.ms : 0;
  }
}
