import type { ReactNode } from 'react';

/** What a list says when it has nothing yet, and what to do about it. */
export function Empty({ children }: { children: ReactNode }) {
  return <div className="notice muted">{children}</div>;
}
