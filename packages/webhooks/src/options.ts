/**
 * Rejects option names a function does not know, so a typo such as `tolerence` fails loudly instead of silently
 * falling back to a default (the habit of stripe-node's `ALLOWED_CONFIG_PROPERTIES`).
 */
export function assertKnownOptions(
  options: unknown,
  allowed: readonly string[],
  where: string,
): asserts options is Record<string, unknown> | undefined {
  if (options === undefined) return;
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`${where}: options must be an object`);
  }
  const unknown = Object.keys(options).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) {
    throw new TypeError(
      `${where}: unknown option${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => JSON.stringify(k)).join(', ')}; ` +
        `allowed: ${allowed.join(', ')}`,
    );
  }
}

/** Checks a caller-supplied function option. */
export function assertFunction(value: unknown, name: string, where: string): void {
  if (value !== undefined && typeof value !== 'function') {
    throw new TypeError(`${where}: ${name} must be a function`);
  }
}

/** Checks a caller-supplied non-negative finite number option. */
export function assertNonNegative(value: unknown, name: string, where: string): void {
  if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value) || value < 0)) {
    throw new TypeError(`${where}: ${name} must be a non-negative finite number`);
  }
}
