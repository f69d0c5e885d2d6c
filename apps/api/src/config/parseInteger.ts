/** An integer setting from `min` to `max`; a problem naming the variable goes to `problems` otherwise. */
export function parseInteger(
  name: string,
  value: string,
  problems: string[],
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    problems.push(`${name} must be an integer from ${min} to ${max} (got "${value}")`);
  }
  return n;
}
