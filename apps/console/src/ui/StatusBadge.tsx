/** A status as a word in its colour (the word carries the meaning; the colour only helps). */
export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge status-${status}`}>{status}</span>;
}
