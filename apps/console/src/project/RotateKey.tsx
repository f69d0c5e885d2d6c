import { useState } from 'react';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Modal } from '../ui/Modal.tsx';
import { useRotateApiKey } from './useProject.ts';

/** Key rotation (admins): asks first, then shows the new key once. */
export function RotateKey() {
  const [confirming, setConfirming] = useState(false);
  const [newKey, setNewKey] = useState<string | null>(null);
  const rotate = useRotateApiKey();
  const confirm = async () => {
    const { apiKey } = await rotate.mutateAsync();
    setConfirming(false);
    setNewKey(apiKey);
  };
  return (
    <section aria-labelledby="rotate-heading">
      <h2 id="rotate-heading">API key</h2>
      <p className="muted">
        Rotating revokes the current key at once: every program using it is refused until it has the new one.
      </p>
      <button type="button" className="danger" onClick={() => setConfirming(true)}>
        Rotate the API key…
      </button>
      {newKey && (
        <div className="notice success" aria-live="polite">
          <p>The new API key, shown this once: store it now.</p>
          <code>{newKey}</code>
        </div>
      )}
      <Modal title="Rotate the API key?" isOpen={confirming} onClose={() => setConfirming(false)}>
        <p>The current key stops working now. This cannot be undone.</p>
        {rotate.isError && <ErrorNotice error={rotate.error} />}
        <div className="row">
          <button
            type="button"
            className="primary"
            onClick={() => confirm().catch(() => {})}
            disabled={rotate.isPending}
          >
            Rotate now
          </button>
          <button type="button" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      </Modal>
    </section>
  );
}
