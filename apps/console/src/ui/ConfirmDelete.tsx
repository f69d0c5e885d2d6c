import type { UseMutationResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ErrorNotice } from './ErrorNotice.tsx';
import { Modal } from './Modal.tsx';

/**
 * The confirmation of a deletion: what goes with it, then Delete (the mutation, which closes the dialog once it
 * succeeded, or shows the API's error) or Cancel. Closed while `id` is null.
 */
export function ConfirmDelete<Answer>({
  title,
  id,
  remove,
  onClose,
  children,
}: {
  title: string;
  id: string | null;
  remove: UseMutationResult<Answer, Error, { id: string }>;
  onClose: () => void;
  children: ReactNode;
}) {
  const close = () => {
    remove.reset();
    onClose();
  };
  return (
    <Modal title={title} isOpen={id !== null} onClose={close}>
      {children}
      {remove.isError && <ErrorNotice error={remove.error} />}
      <div className="row">
        <button
          type="button"
          className="danger"
          disabled={remove.isPending || id === null}
          onClick={() => id !== null && remove.mutate({ id }, { onSuccess: close })}
        >
          Delete
        </button>
        <button type="button" onClick={close}>
          Cancel
        </button>
      </div>
    </Modal>
  );
}
