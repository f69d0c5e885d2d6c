import type { ReactNode } from 'react';

/** A column's heading; a `hidden` one is read by screen readers only (the column of a row's buttons). */
export type Column = string | { label: string; hidden: true };

/** The heading of a column of buttons. */
export const ACTIONS: Column = { label: 'Actions', hidden: true };

/**
 * A table of rows (the children), scrolling sideways on a narrow screen, with its caption for screen readers and
 * its column headings.
 */
export function DataTable({ caption, columns, children }: { caption: string; columns: Column[]; children: ReactNode }) {
  return (
    // Focusable, so that a keyboard can scroll it sideways when it is wider than the screen.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take the focus (WCAG 2.1.1)
    <section className="table-scroll" tabIndex={0} aria-label={caption}>
      <table>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) =>
              typeof column === 'string' ? (
                <th scope="col" key={column}>
                  {column}
                </th>
              ) : (
                <th scope="col" key={column.label}>
                  <span className="visually-hidden">{column.label}</span>
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </section>
  );
}
