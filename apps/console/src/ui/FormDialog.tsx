import type { ReactNode } from 'react';
import { fieldErrorsOf, otherErrors } from '../api/errors.ts';
import { ErrorNotice } from './ErrorNotice.tsx';
import { FormActions } from './FormActions.tsx';
import { Modal } from './Modal.tsx';

/**
 * A dialog holding a form: what the call answered when no field can show it (the API's error, or its field errors
 * that match none of `fields`, so none is lost), the fields, and the submit and Cancel buttons. `done`, once there,
 * is shown in place of the form (a secret shown once, how many were queued).
 */
export function FormDialog({
  title,
  isOpen,
  onClose,
  lead,
  error,
  fields,
  submit,
  pending,
  onSubmit,
  done,
  children,
}: {
  title: string;
  isOpen: boolean;
  onClose: () => void;
  /** Above the form's notices: what the form does. */
  lead?: ReactNode;
  /** The call's error (a mutation's), if it failed. */
  error: unknown;
  /** The form's field names, as the API names them. */
  fields: string[];
  /** The submit button's word. */
  submit: string;
  pending: boolean;
  /** Checks the fields and makes the call (a failed call shows in `error`). */
  onSubmit: () => unknown;
  done?: ReactNode;
  children: ReactNode;
}) {
  const apiErrors = fieldErrorsOf(error);
  const unplaced = otherErrors(apiErrors, fields);
  return (
    <Modal title={title} isOpen={isOpen} onClose={onClose}>
      {done || (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            Promise.resolve(onSubmit()).catch(() => {});
          }}
          noValidate
        >
          {lead}
          {error !== null && error !== undefined && Object.keys(apiErrors).length === 0 && (
            <ErrorNotice error={error} />
          )}
          {unplaced.length > 0 && (
            <div className="notice error" role="alert">
              {unplaced.join('; ')}
            </div>
          )}
          {children}
          <FormActions submit={submit} pending={pending} onCancel={onClose} />
        </form>
      )}
    </Modal>
  );
}
