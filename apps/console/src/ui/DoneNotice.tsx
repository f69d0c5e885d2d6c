import type { ReactNode } from 'react';

/** What a dialog's call did, in place of its form, with the button that closes the dialog. */
export function DoneNotice({ children, onDone }: { children: ReactNode; onDone: () => void }) {
  return (
    <div className="notice success" aria-live="polite">
      {children}
      <p>
        <button type="button" onClick={onDone}>
          Done
        </button>
      </p>
    </div>
  );
}
