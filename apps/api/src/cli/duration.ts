const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };
const MAX_SECONDS = 30 * 86_400;

/** "90", "30m", "24h", "7d" → seconds; at most 30 days. */
export function parseDuration(text: string): number {
  const match = /^(\d{1,7})([smhd]?)$/.exec(text.trim());
  const seconds = match ? Number(match[1]) * (UNITS[match[2] || 's'] as number) : Number.NaN;
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_SECONDS) {
    throw new RangeError(`duration must be like 30m, 24h or 7d, at most 30d (got "${text}")`);
  }
  return seconds;
}
