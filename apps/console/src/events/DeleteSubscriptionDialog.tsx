import type { EventNotifierSubscription } from '@mountain/public-api-client';
import { ConfirmDelete } from '../ui/ConfirmDelete.tsx';
import { useDeleteSubscription } from './useSubscriptions.ts';

/** Delete a subscription, once confirmed: its scanning and webhooks stop, and its records are gone. */
export function DeleteSubscriptionDialog({
  subscription,
  onClose,
}: {
  subscription: EventNotifierSubscription | null;
  onClose: () => void;
}) {
  return (
    <ConfirmDelete
      title="Delete this subscription?"
      id={subscription?.id ?? null}
      remove={useDeleteSubscription()}
      onClose={onClose}
    >
      <p>
        <strong>{subscription?.subscriptionName}</strong> stops scanning and sends no more webhooks; its records, their
        webhooks waiting to be sent and their attempt log are deleted. This cannot be undone: a new subscription finds
        the same events again under new ids.
      </p>
    </ConfirmDelete>
  );
}
