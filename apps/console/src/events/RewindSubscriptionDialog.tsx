import type { EventNotifierSubscription } from '@mountain/public-api-client';
import { useEffect, useState } from 'react';
import { fieldErrorsOf } from '../api/errors.ts';
import { DoneNotice } from '../ui/DoneNotice.tsx';
import { Field } from '../ui/Field.tsx';
import { FormDialog } from '../ui/FormDialog.tsx';
import { useRewindSubscription } from './useSubscriptions.ts';

const FIELDS = ['fromBlock', 'redeliver'];

/** The next block a subscription scans: a rewind goes back from there only. */
const nextBlockOf = (s: EventNotifierSubscription) => Math.max(s.initialBlockNumber, (s.lastScannedBlock ?? -1) + 1);

/**
 * Scan a subscription again from an earlier block (rewind-subscription), with what it watches now: events it did
 * not record before become records; those it did are not recorded twice, nor sent again unless asked.
 */
export function RewindSubscriptionDialog({
  subscription,
  onClose,
}: {
  subscription: EventNotifierSubscription | null;
  onClose: () => void;
}) {
  const [fromBlock, setFromBlock] = useState('0');
  const [redeliver, setRedeliver] = useState(false);
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});
  const rewind = useRewindSubscription();
  useEffect(() => {
    if (!subscription) return;
    setFromBlock(String(subscription.initialBlockNumber));
    setRedeliver(false);
  }, [subscription]);
  const errors = { ...fieldErrorsOf(rewind.error), ...localErrors };
  const next = subscription ? nextBlockOf(subscription) : 0;
  const close = () => {
    rewind.reset();
    setLocalErrors({});
    onClose();
  };
  const submit = () => {
    const problems: Record<string, string> = {};
    // Past the next block to scan is the API's to refuse: the scan may have moved on since the list was read.
    if (!/^\d+$/.test(fromBlock)) problems.fromBlock = 'A block number, 0 or more';
    setLocalErrors(problems);
    if (!subscription || Object.keys(problems).length > 0) return;
    rewind.mutate({ id: subscription.id, fromBlock: Number(fromBlock), redeliver });
  };
  const answer = rewind.data;
  return (
    <FormDialog
      title={`Rewind ${subscription?.subscriptionName ?? 'the subscription'}`}
      isOpen={subscription !== null}
      onClose={close}
      lead={
        <p>
          Scans the blocks again from the one you choose, with what the subscription watches now. Events it did not
          record before (a contract, an event or a filter added since) become new records and are sent to its webhook;
          events already recorded are not recorded twice, and their webhooks are not sent again unless you tick the box
          below.
        </p>
      }
      error={rewind.error}
      fields={FIELDS}
      submit="Rewind"
      pending={rewind.isPending}
      onSubmit={submit}
      done={
        answer && (
          <DoneNotice onDone={close}>
            <p>
              {answer.redeliveredCount === null
                ? `A scan is running: the next one, right after it, starts again from block ${fromBlock}.`
                : `Scanning again from block ${fromBlock}.`}
              {answer.redeliveredCount !== null &&
                redeliver &&
                ` ${answer.redeliveredCount} record(s) already sent are sent again.`}
            </p>
          </DoneNotice>
        )
      }
    >
      <Field
        label="From block"
        hint={
          subscription
            ? `From ${subscription.initialBlockNumber} (where it starts; lower moves its start down) up to ${next} (the next block to scan).`
            : undefined
        }
        error={errors.fromBlock}
      >
        <input value={fromBlock} onChange={(e) => setFromBlock(e.target.value)} inputMode="numeric" />
      </Field>
      <label className="check-line">
        <input type="checkbox" checked={redeliver} onChange={(e) => setRedeliver(e.target.checked)} />
        <span>
          Send again the events already delivered (or failed) from that block on, each under its record id (its
          webhook-id): a receiver that drops webhook-ids it has seen must forget these to process them again
        </span>
      </label>
    </FormDialog>
  );
}
