/** A polite loading line (an output element: a status, read once), nothing spinning. */
export function Loading({ what }: { what: string }) {
  return <output className="muted loading">Loading {what}…</output>;
}
