import { ConfirmDelete } from '../ui/ConfirmDelete.tsx';
import { useDeleteEndpoint, type WebhookEndpoint } from './useWebhooks.ts';

/** Delete an endpoint, once confirmed: nothing more is sent to it. */
export function DeleteEndpointDialog({ endpoint, onClose }: { endpoint: WebhookEndpoint | null; onClose: () => void }) {
  return (
    <ConfirmDelete
      title="Delete this endpoint?"
      id={endpoint?.id ?? null}
      remove={useDeleteEndpoint()}
      onClose={onClose}
    >
      <p>
        Nothing more is sent to <span className="mono">{endpoint?.url}</span>; its messages waiting to be sent and its
        attempt log go with it.
      </p>
    </ConfirmDelete>
  );
}
