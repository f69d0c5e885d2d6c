// What every settings parser shares: the environment's shape and the integer checks. Each feature's settings module
// parses its own variables with these (problems are collected, never thrown); config.ts composes them.

export type Env = Record<string, string | undefined>;

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

export function parsePort(name: string, value: string, problems: string[]): number {
  return parseInteger(name, value, problems, 0, 65535);
}
