import { useState } from 'react';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Field } from '../ui/Field.tsx';
import { formatTime } from '../ui/format.ts';
import { Modal } from '../ui/Modal.tsx';
import { SecretShown } from '../ui/SecretShown.tsx';
import { useRotateEndpointSecret, type WebhookEndpoint } from './useWebhooks.ts';

/** How long the previous secret signs beside the new one: a receiver has that long to take the new secret. */
const GRACE_PERIODS = [
  { seconds: 0, label: 'None: the previous secret stops at once' },
  { seconds: 3_600, label: '1 hour' },
  { seconds: 86_400, label: '24 hours (the default)' },
  { seconds: 604_800, label: '7 days (the longest)' },
];

/** Rotate an endpoint's secret: the new one is shown once; the previous one signs too for the grace period. */
export function RotateSecretDialog({ endpoint, onClose }: { endpoint: WebhookEndpoint | null; onClose: () => void }) {
  const [grace, setGrace] = useState(86_400);
  const rotate = useRotateEndpointSecret();
  const close = () => {
    rotate.reset();
    onClose();
  };
  const rotated = rotate.data?.webhookEndpoint;
  return (
    <Modal title="Rotate the signing secret?" isOpen={endpoint !== null} onClose={close}>
      {rotated ? (
        <SecretShown
          lead={`The new secret signs from now on, shown this once. ${
            rotated.previousSecretExpiresAt
              ? `The previous one signs beside it until ${formatTime(rotated.previousSecretExpiresAt)}: each webhook carries both signatures until then.`
              : 'The previous one no longer signs.'
          }`}
          secret={rotated.secret}
          onDone={close}
        />
      ) : (
        <>
          <p>
            For <span className="mono">{endpoint?.url}</span>. Give the new secret to your receiver within the grace
            period.
          </p>
          {rotate.isError && <ErrorNotice error={rotate.error} />}
          <Field label="Grace period">
            <select value={grace} onChange={(e) => setGrace(Number(e.target.value))}>
              {GRACE_PERIODS.map((g) => (
                <option key={g.seconds} value={g.seconds}>
                  {g.label}
                </option>
              ))}
            </select>
          </Field>
          <div className="row">
            <button
              type="button"
              className="primary"
              disabled={rotate.isPending || !endpoint}
              onClick={() => endpoint && rotate.mutate({ id: endpoint.id, gracePeriodSeconds: grace })}
            >
              Rotate now
            </button>
            <button type="button" onClick={close}>
              Cancel
            </button>
          </div>
        </>
      )}
    </Modal>
  );
}
