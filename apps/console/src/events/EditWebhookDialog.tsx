import type { EventNotifierSubscription } from '@mountain/public-api-client';
import { useEffect, useState } from 'react';
import { fieldErrorsOf } from '../api/errors.ts';
import { Field } from '../ui/Field.tsx';
import { FormDialog } from '../ui/FormDialog.tsx';
import { useUpdateWebhook } from './useSubscriptions.ts';

const FIELDS = ['webhookURL', 'webhookMaxRetries', 'webhookEnabled'];

/** Change a subscription's webhook: its URL, its retries, on or off (enabling it clears an auto-disable). */
export function EditWebhookDialog({
  subscription,
  onClose,
}: {
  subscription: EventNotifierSubscription | null;
  onClose: () => void;
}) {
  const [url, setUrl] = useState('');
  const [retries, setRetries] = useState('5');
  const [enabled, setEnabled] = useState(true);
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});
  const update = useUpdateWebhook();
  useEffect(() => {
    if (!subscription) return;
    setUrl(subscription.webhookURL ?? '');
    setRetries(String(subscription.webhookMaxRetries));
    setEnabled(subscription.webhookEnabled);
  }, [subscription]);
  const errors = { ...fieldErrorsOf(update.error), ...localErrors };
  const close = () => {
    update.reset();
    setLocalErrors({});
    onClose();
  };
  const submit = async () => {
    const problems: Record<string, string> = {};
    if (url.trim() && !/^https?:\/\/\S+$/.test(url.trim())) problems.webhookURL = 'An http(s) URL';
    if (!url.trim() && enabled) problems.webhookURL = 'A webhook needs a URL to be enabled';
    if (!/^\d+$/.test(retries)) problems.webhookMaxRetries = 'A number of retries, 0 or more';
    setLocalErrors(problems);
    if (!subscription || Object.keys(problems).length > 0) return;
    await update.mutateAsync({
      id: subscription.id,
      webhookEnabled: enabled,
      webhookMaxRetries: Number(retries),
      ...(url.trim() ? { webhookURL: url.trim() } : {}),
    });
    close();
  };
  return (
    <FormDialog
      title={`Webhook of ${subscription?.subscriptionName ?? 'the subscription'}`}
      isOpen={subscription !== null}
      onClose={close}
      error={update.error}
      fields={FIELDS}
      submit="Save"
      pending={update.isPending}
      onSubmit={submit}
    >
      {subscription?.webhookDisabledReason && (
        <p className="field-error">Disabled by the platform: {subscription.webhookDisabledReason}</p>
      )}
      <Field label="Webhook URL" error={errors.webhookURL}>
        <input value={url} onChange={(e) => setUrl(e.target.value)} type="url" spellCheck={false} />
      </Field>
      <Field label="Webhook retries" error={errors.webhookMaxRetries}>
        <input value={retries} onChange={(e) => setRetries(e.target.value)} inputMode="numeric" />
      </Field>
      <label className="row">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
        Send webhooks (while off, new records stay scanned)
      </label>
    </FormDialog>
  );
}
