import { useState } from 'react';
import { lazyNamed, loadOnIntent, WhenOpened } from '../ui/WhenOpened.tsx';

const RotateKeyDialog = lazyNamed(() => import('./RotateKeyDialog.tsx'), 'RotateKeyDialog');

/** Key rotation (admins): asks first, then shows the new key once. */
export function RotateKey() {
  const [confirming, setConfirming] = useState(false);
  const [newKey, setNewKey] = useState<string | null>(null);
  return (
    <section aria-labelledby="rotate-heading">
      <h2 id="rotate-heading">API key</h2>
      <p className="muted">
        Rotating revokes the current key at once: every program using it is refused until it has the new one.
      </p>
      <button type="button" className="danger" onClick={() => setConfirming(true)} {...loadOnIntent(RotateKeyDialog)}>
        Rotate the API key…
      </button>
      {newKey && (
        <div className="notice success" aria-live="polite">
          <p>The new API key, shown this once: store it now.</p>
          <code>{newKey}</code>
        </div>
      )}
      <WhenOpened open={confirming}>
        <RotateKeyDialog
          isOpen={confirming}
          onClose={() => setConfirming(false)}
          onRotated={(apiKey) => {
            setConfirming(false);
            setNewKey(apiKey);
          }}
        />
      </WhenOpened>
    </section>
  );
}
