/** Dates as the reader's locale writes them, with seconds: a transaction's steps are seconds apart. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

/** 0x1234…abcd: enough to recognise, the full value in a title and for copying. */
export function shortHex(value: string, keep = 6): string {
  return value.length > keep * 2 + 3 ? `${value.slice(0, keep + 2)}…${value.slice(-keep)}` : value;
}
