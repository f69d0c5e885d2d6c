import type { EventNotifierSubscription } from '@mountain/public-api-client';
import { useEffect, useState } from 'react';
import { fieldErrorsOf } from '../api/errors.ts';
import { Field } from '../ui/Field.tsx';
import { FormDialog } from '../ui/FormDialog.tsx';
import { Hex } from '../ui/Hex.tsx';
import { useUpdateSubscription } from './useSubscriptions.ts';
import { WatchFields } from './WatchFields.tsx';
import {
  checkWatchForm,
  emptyWatch,
  placeWatchErrors,
  WATCH_FIELDS,
  type WatchErrors,
  watchBody,
  watchFormOf,
} from './watchForm.ts';

const FIELDS = ['subscriptionName', 'scanInterval', 'confirmations', ...WATCH_FIELDS];

/**
 * Change a subscription (update-subscription): its name, scan interval and confirmations, and what it watches
 * beside its first event and contract (more events, contracts, filters, conditions), from its next scan.
 */
export function EditSubscriptionDialog({
  subscription,
  onClose,
}: {
  subscription: EventNotifierSubscription | null;
  onClose: () => void;
}) {
  const [name, setName] = useState('');
  const [scanInterval, setScanInterval] = useState('5');
  const [confirmations, setConfirmations] = useState('0');
  const [watch, setWatch] = useState(emptyWatch);
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});
  const [localWatchErrors, setLocalWatchErrors] = useState<WatchErrors>({});
  const update = useUpdateSubscription();
  useEffect(() => {
    if (!subscription) return;
    setName(subscription.subscriptionName);
    setScanInterval(String(subscription.scanInterval));
    setConfirmations(String(subscription.confirmations));
    setWatch(watchFormOf(subscription));
  }, [subscription]);
  const apiErrors = fieldErrorsOf(update.error);
  const errors = { ...apiErrors, ...localErrors };
  const watchErrors = { ...placeWatchErrors(apiErrors, watch), ...localWatchErrors };
  const close = () => {
    update.reset();
    setLocalErrors({});
    setLocalWatchErrors({});
    onClose();
  };
  const submit = async () => {
    const problems: Record<string, string> = {};
    if (name.trim() === '') problems.subscriptionName = 'Give the subscription a name';
    if (!/^\d+$/.test(scanInterval) || Number(scanInterval) < 5 || Number(scanInterval) > 86_400)
      problems.scanInterval = 'From 5 to 86400 seconds';
    if (!/^\d+$/.test(confirmations) || Number(confirmations) > 10_000)
      problems.confirmations = 'A number of blocks, 0 to 10000';
    const watchProblems = checkWatchForm(watch);
    setLocalErrors(problems);
    setLocalWatchErrors(watchProblems);
    if (!subscription || Object.keys(problems).length > 0 || Object.keys(watchProblems).length > 0) return;
    await update.mutateAsync({
      id: subscription.id,
      subscriptionName: name.trim(),
      scanInterval: Number(scanInterval),
      confirmations: Number(confirmations),
      ...watchBody(watch),
    });
    close();
  };
  return (
    <FormDialog
      title={`Edit ${subscription?.subscriptionName ?? 'the subscription'}`}
      isOpen={subscription !== null}
      onClose={close}
      lead={
        subscription && (
          <p>
            Watches <span className="mono">{subscription.formattedAbiEvent}</span> of{' '}
            <Hex value={subscription.address} what="contract address" />, which stay. Changes apply from the next scan:
            blocks already scanned are not read again (<strong>Rewind</strong> does that), and records already stored
            stay.
          </p>
        )
      }
      error={update.error}
      fields={FIELDS}
      submit="Save"
      pending={update.isPending}
      onSubmit={submit}
    >
      <Field label="Name" error={errors.subscriptionName}>
        <input value={name} onChange={(e) => setName(e.target.value)} />
      </Field>
      <div className="watch-pair">
        <Field label="Scan every (seconds)" error={errors.scanInterval}>
          <input value={scanInterval} onChange={(e) => setScanInterval(e.target.value)} inputMode="numeric" />
        </Field>
        <Field
          label="Confirmations"
          hint="Blocks on top of an event's block before it is recorded."
          error={errors.confirmations}
        >
          <input value={confirmations} onChange={(e) => setConfirmations(e.target.value)} inputMode="numeric" />
        </Field>
      </div>
      {subscription && (
        <WatchFields
          form={watch}
          onChange={(change) => setWatch(change)}
          firstEvent={subscription.formattedAbiEvent}
          errors={watchErrors}
        />
      )}
    </FormDialog>
  );
}
