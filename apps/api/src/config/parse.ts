// What every settings parser shares: the environment's shape and the integer checks. Each feature's settings module
// parses its own variables with these (problems are collected, never thrown); config.ts composes them.

import { NETWORK_IDS } from './networks.ts';

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

/**
 * One variable of the configuration (or a family read together, such as `WEBHOOK_BACKOFF_BASE_MS` and
 * `WEBHOOK_BACKOFF_MAX_MS`), defined once beside the code that parses it. The operations guide's configuration
 * reference is generated from these (config/variables.ts), and a test fails on a variable the code reads without one.
 */
export interface VariableDefinition {
  /** Its names; `<networkId>` (and `<NAME>`) stand for each network id (each name of a list). */
  readonly names: readonly string[];
  /** Its default, as Markdown text (values in `code`). */
  readonly default: string;
  /** What it does, as Markdown text. */
  readonly meaning: string;
}

/** `value` as Markdown code. */
export const code = (value: string | number): string => `\`${value}\``;

/** A per-network default as text, in the networks' order: `1: \`12\`, 137: \`64\`…`. */
export const perNetwork = (values: Readonly<Partial<Record<number, string | number>>>): string =>
  NETWORK_IDS.filter((id) => values[id] !== undefined)
    .map((id) => `${id}: ${code(values[id] as string | number)}`)
    .join(', ');
