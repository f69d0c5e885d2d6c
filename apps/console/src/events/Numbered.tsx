/**
 * The label of a control in a numbered row (a filter's, a condition's): "Parameter" to the eye, "Condition 2
 * Parameter" to a screen reader, so each control has a name of its own.
 */
export function Numbered({ what, n, part }: { what: string; n: number; part: string }) {
  return (
    <>
      <span className="visually-hidden">
        {what} {n}{' '}
      </span>
      {part}
    </>
  );
}
