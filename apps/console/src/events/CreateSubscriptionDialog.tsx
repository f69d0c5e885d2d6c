import type { NetworkId } from '@mountain/public-api-client';
import { useState } from 'react';
import { parseAbiItem } from 'viem';
import { fieldErrorsOf } from '../api/errors.ts';
import { NetworkSelect } from '../networks/NetworkSelect.tsx';
import { Field } from '../ui/Field.tsx';
import { FormDialog } from '../ui/FormDialog.tsx';
import { SecretShown } from '../ui/SecretShown.tsx';
import { useCreateSubscription } from './useSubscriptions.ts';
import { WatchFields } from './WatchFields.tsx';
import {
  checkWatchForm,
  emptyWatch,
  placeWatchErrors,
  WATCH_FIELDS,
  type WatchErrors,
  watchBody,
} from './watchForm.ts';

const FIELDS = [
  ...WATCH_FIELDS,
  'subscriptionName',
  'networkId',
  'address',
  'formattedAbiEvent',
  'initialBlockNumber',
  'scanInterval',
  'webhookURL',
  'webhookMaxRetries',
];

/**
 * Create a subscription; the answer's webhook secret is shown once, here. More events, contracts, filters and
 * conditions are behind a disclosure, opened when one of them is refused.
 */
export function CreateSubscriptionDialog({ isOpen, onClose }: { isOpen: boolean; onClose: () => void }) {
  const [form, setForm] = useState({
    subscriptionName: '',
    networkId: 1337 as NetworkId,
    address: '',
    formattedAbiEvent: '',
    initialBlockNumber: '0',
    scanInterval: '5',
    webhookURL: '',
    webhookMaxRetries: '5',
  });
  const [watch, setWatch] = useState(emptyWatch);
  const [advanced, setAdvanced] = useState(false);
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});
  const [localWatchErrors, setLocalWatchErrors] = useState<WatchErrors>({});
  const [secret, setSecret] = useState<string | null>(null);
  const create = useCreateSubscription();
  const apiErrors = fieldErrorsOf(create.error);
  const errors = { ...apiErrors, ...localErrors };
  const watchErrors = { ...placeWatchErrors(apiErrors, watch), ...localWatchErrors };
  const set = (name: Exclude<keyof typeof form, 'networkId'>) => (event: { target: { value: string } }) =>
    setForm((f) => ({ ...f, [name]: event.target.value }));

  const submit = async () => {
    const problems: Record<string, string> = {};
    if (form.subscriptionName.trim() === '') problems.subscriptionName = 'Give the subscription a name';
    if (!/^0x[0-9a-fA-F]{40}$/.test(form.address.trim()))
      problems.address = 'An address is 0x followed by 40 hex digits';
    try {
      if (parseAbiItem(form.formattedAbiEvent.trim()).type !== 'event')
        problems.formattedAbiEvent = 'This is not an event';
    } catch {
      problems.formattedAbiEvent =
        'Write the event as a signature: event Transfer(address indexed from, address indexed to, uint256 value)';
    }
    if (!/^\d+$/.test(form.initialBlockNumber)) problems.initialBlockNumber = 'A block number, 0 or more';
    if (!/^\d+$/.test(form.scanInterval) || Number(form.scanInterval) < 5) problems.scanInterval = 'At least 5 seconds';
    if (!/^\d+$/.test(form.webhookMaxRetries)) problems.webhookMaxRetries = 'A number of retries, 0 or more';
    const watchProblems = checkWatchForm(watch);
    setLocalErrors(problems);
    setLocalWatchErrors(watchProblems);
    if (Object.keys(watchProblems).length > 0) setAdvanced(true);
    if (Object.keys(problems).length > 0 || Object.keys(watchProblems).length > 0) return;
    const more = watchBody(watch);
    const { eventNotifierSubscription } = await create
      .mutateAsync({
        subscriptionName: form.subscriptionName.trim(),
        networkId: form.networkId,
        address: form.address.trim(),
        formattedAbiEvent: form.formattedAbiEvent.trim(),
        initialBlockNumber: Number(form.initialBlockNumber),
        scanInterval: Number(form.scanInterval),
        webhookMaxRetries: Number(form.webhookMaxRetries),
        ...(form.webhookURL.trim() ? { webhookURL: form.webhookURL.trim() } : {}),
        ...(more.formattedAbiEvents.length > 0 ? { formattedAbiEvents: more.formattedAbiEvents } : {}),
        ...(more.addresses.length > 0 ? { addresses: more.addresses } : {}),
        ...(Object.keys(more.filters).length > 0 ? { filters: more.filters } : {}),
        ...(more.conditions.length > 0 ? { conditions: more.conditions } : {}),
      })
      .catch((error: unknown) => {
        // A refusal of the advanced fields shows beside them: the disclosure opens.
        if (Object.keys(placeWatchErrors(fieldErrorsOf(error), watch)).length > 0) setAdvanced(true);
        throw error;
      });
    setSecret(eventNotifierSubscription.webhookSecret);
  };
  const close = () => {
    setSecret(null);
    create.reset();
    onClose();
  };
  return (
    <FormDialog
      title="Create a subscription"
      isOpen={isOpen}
      onClose={close}
      error={create.error}
      fields={FIELDS}
      submit="Create"
      pending={create.isPending}
      onSubmit={submit}
      done={
        secret && (
          <SecretShown
            lead="Created. Its webhook secret, shown this once (verify each webhook's signature with it):"
            secret={secret}
            onDone={close}
          />
        )
      }
    >
      <Field label="Name" error={errors.subscriptionName}>
        <input value={form.subscriptionName} onChange={set('subscriptionName')} />
      </Field>
      <Field label="Network" error={errors.networkId}>
        <NetworkSelect value={form.networkId} onChange={(networkId) => setForm((f) => ({ ...f, networkId }))} />
      </Field>
      <Field label="Contract address" error={errors.address}>
        <input value={form.address} onChange={set('address')} spellCheck={false} autoComplete="off" />
      </Field>
      <Field
        label="Event"
        hint="event Transfer(address indexed from, address indexed to, uint256 value)"
        error={errors.formattedAbiEvent}
      >
        <input value={form.formattedAbiEvent} onChange={set('formattedAbiEvent')} spellCheck={false} />
      </Field>
      <details open={advanced} onToggle={(e) => setAdvanced(e.currentTarget.open)}>
        <summary>Advanced: more events, contracts, filters</summary>
        <WatchFields
          form={watch}
          onChange={(change) => setWatch(change)}
          firstEvent={form.formattedAbiEvent}
          errors={watchErrors}
        />
      </details>
      <Field label="From block" error={errors.initialBlockNumber}>
        <input value={form.initialBlockNumber} onChange={set('initialBlockNumber')} inputMode="numeric" />
      </Field>
      <Field label="Scan every (seconds)" error={errors.scanInterval}>
        <input value={form.scanInterval} onChange={set('scanInterval')} inputMode="numeric" />
      </Field>
      <Field label="Webhook URL" hint="Optional: where each event is sent, signed." error={errors.webhookURL}>
        <input value={form.webhookURL} onChange={set('webhookURL')} type="url" spellCheck={false} />
      </Field>
      <Field label="Webhook retries" error={errors.webhookMaxRetries}>
        <input value={form.webhookMaxRetries} onChange={set('webhookMaxRetries')} inputMode="numeric" />
      </Field>
    </FormDialog>
  );
}
