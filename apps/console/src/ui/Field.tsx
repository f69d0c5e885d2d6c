import { cloneElement, type ReactElement, type ReactNode, useId } from 'react';

/**
 * A labelled control with its hint and its error beside it: the control gets its id, `aria-describedby` and
 * `aria-invalid`, so a screen reader reads the error with the field.
 */
export function Field({
  label,
  hint,
  error,
  children,
}: {
  /** What the control is; a part of it may be for screen readers only (a row's number, say). */
  label: ReactNode;
  hint?: string;
  error?: string | undefined;
  children: ReactElement<Record<string, unknown>>;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [hint ? hintId : '', error ? errorId : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {cloneElement(children, { id, 'aria-describedby': describedBy, 'aria-invalid': error ? true : undefined })}
      {hint && (
        <span className="hint" id={hintId}>
          {hint}
        </span>
      )}
      {error && (
        <span className="field-error" id={errorId}>
          {error}
        </span>
      )}
    </div>
  );
}
