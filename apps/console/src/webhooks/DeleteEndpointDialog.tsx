import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Modal } from '../ui/Modal.tsx';
import { useDeleteEndpoint, type WebhookEndpoint } from './useWebhooks.ts';

/** Delete an endpoint, once confirmed: nothing more is sent to it. */
export function DeleteEndpointDialog({ endpoint, onClose }: { endpoint: WebhookEndpoint | null; onClose: () => void }) {
  const remove = useDeleteEndpoint();
  const close = () => {
    remove.reset();
    onClose();
  };
  return (
    <Modal title="Delete this endpoint?" isOpen={endpoint !== null} onClose={close}>
      <p>
        Nothing more is sent to <span className="mono">{endpoint?.url}</span>; its messages waiting to be sent and its
        attempt log go with it.
      </p>
      {remove.isError && <ErrorNotice error={remove.error} />}
      <div className="row">
        <button
          type="button"
          className="danger"
          disabled={remove.isPending || !endpoint}
          onClick={() => endpoint && remove.mutate({ id: endpoint.id }, { onSuccess: close })}
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
