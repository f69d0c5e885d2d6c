/** The filter and condition rows' shared editing: a row is changed by id, removed by its button, added up to a limit. */
export type RowsChange<Row> = (change: (rows: Row[]) => Row[]) => void;

/** Merges `change` into the row with `id`. */
export const updateRow =
  <Row extends { id: number }>(onChange: RowsChange<Row>) =>
  (id: number, change: Partial<Row>) =>
    onChange((list) => list.map((row) => (row.id === id ? { ...row, ...change } : row)));

/** "Remove", named for a screen reader by the row it removes ("Remove condition 2"). */
export function RemoveRow<Row extends { id: number }>({
  what,
  n,
  id,
  onChange,
}: {
  what: string;
  n: number;
  id: number;
  onChange: RowsChange<Row>;
}) {
  return (
    <button
      type="button"
      onClick={() => onChange((list) => list.filter((r) => r.id !== id))}
      aria-label={`Remove ${what} ${n}`}
    >
      Remove
    </button>
  );
}

/** "Add a …": a new row from `make`, disabled once there are `max`. */
export function AddRow<Row>({
  label,
  count,
  max,
  make,
  onChange,
}: {
  label: string;
  count: number;
  max: number;
  make: () => Row;
  onChange: RowsChange<Row>;
}) {
  return (
    <button type="button" disabled={count >= max} onClick={() => onChange((list) => [...list, make()])}>
      {label}
    </button>
  );
}
