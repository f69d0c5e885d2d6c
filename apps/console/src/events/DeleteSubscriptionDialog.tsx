import type { EventNotifierSubscription } from '@mountain/public-api-client';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Modal } from '../ui/Modal.tsx';
import { useDeleteSubscription } from './useSubscriptions.ts';

/** Delete a subscription, once confirmed: its scanning and webhooks stop, and its records are gone. */
export function DeleteSubscriptionDialog({
  subscription,
  onClose,
}: {
  subscription: EventNotifierSubscription | null;
  onClose: () => void;
}) {
  const remove = useDeleteSubscription();
  const close = () => {
    remove.reset();
    onClose();
  };
  return (
    <Modal title="Delete this subscription?" isOpen={subscription !== null} onClose={close}>
      <p>
        <strong>{subscription?.subscriptionName}</strong> stops scanning and sends no more webhooks; its records, their
        webhooks waiting to be sent and their attempt log are deleted. This cannot be undone: a new subscription finds
        the same events again under new ids.
      </p>
      {remove.isError && <ErrorNotice error={remove.error} />}
      <div className="row">
        <button
          type="button"
          className="danger"
          disabled={remove.isPending || !subscription}
          onClick={() => subscription && remove.mutate({ id: subscription.id }, { onSuccess: close })}
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
