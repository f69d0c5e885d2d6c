import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Modal } from '../ui/Modal.tsx';
import { useRotateApiKey } from './useProject.ts';

/** Asks before rotating the project's API key; hands the new key to `onRotated`. */
export function RotateKeyDialog({
  isOpen,
  onClose,
  onRotated,
}: {
  isOpen: boolean;
  onClose: () => void;
  onRotated: (apiKey: string) => void;
}) {
  const rotate = useRotateApiKey();
  const confirm = async () => {
    const { apiKey } = await rotate.mutateAsync();
    onRotated(apiKey);
  };
  return (
    <Modal title="Rotate the API key?" isOpen={isOpen} onClose={onClose}>
      <p>The current key stops working now. This cannot be undone.</p>
      {rotate.isError && <ErrorNotice error={rotate.error} />}
      <div className="row">
        <button type="button" className="primary" onClick={() => confirm().catch(() => {})} disabled={rotate.isPending}>
          Rotate now
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </Modal>
  );
}
