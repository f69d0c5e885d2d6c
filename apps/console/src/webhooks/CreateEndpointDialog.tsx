import { useState } from 'react';
import { fieldErrorsOf } from '../api/errors.ts';
import { Field } from '../ui/Field.tsx';
import { FormDialog } from '../ui/FormDialog.tsx';
import { SecretShown } from '../ui/SecretShown.tsx';
import { EventTypeChoice } from './EventTypeChoice.tsx';
import { type EventType, useCreateEndpoint } from './useWebhooks.ts';

const FIELDS = ['url', 'description', 'eventTypes'];

/** Create an endpoint: its URL, a note, the event types it takes. Its signing secret is shown once, here. */
export function CreateEndpointDialog({ isOpen, onClose }: { isOpen: boolean; onClose: () => void }) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [eventTypes, setEventTypes] = useState<EventType[]>(['transaction.succeeded', 'transaction.failed']);
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});
  const [secret, setSecret] = useState<string | null>(null);
  const create = useCreateEndpoint();
  const errors = { ...fieldErrorsOf(create.error), ...localErrors };

  const submit = async () => {
    const problems: Record<string, string> = {};
    if (!/^https?:\/\/\S+$/.test(url.trim())) problems.url = 'An http(s) URL: https://example.com/webhooks';
    if (eventTypes.length === 0) problems.eventTypes = 'Choose at least one event type';
    setLocalErrors(problems);
    if (Object.keys(problems).length > 0) return;
    const { webhookEndpoint } = await create.mutateAsync({
      url: url.trim(),
      eventTypes,
      ...(description.trim() ? { description: description.trim() } : {}),
    });
    setSecret(webhookEndpoint.secret);
  };
  const close = () => {
    setSecret(null);
    setUrl('');
    setDescription('');
    create.reset();
    onClose();
  };
  return (
    <FormDialog
      title="Add an endpoint"
      isOpen={isOpen}
      onClose={close}
      error={create.error}
      fields={FIELDS}
      submit="Add"
      pending={create.isPending}
      onSubmit={submit}
      done={
        secret && (
          <SecretShown
            lead="Added. Its signing secret, shown this once (verify each webhook's signature with it):"
            secret={secret}
            onDone={close}
          />
        )
      }
    >
      <Field label="Endpoint URL" error={errors.url}>
        <input value={url} onChange={(e) => setUrl(e.target.value)} type="url" spellCheck={false} />
      </Field>
      <Field label="Description" hint="Optional: a note for you." error={errors.description}>
        <input value={description} onChange={(e) => setDescription(e.target.value)} maxLength={512} />
      </Field>
      <EventTypeChoice chosen={eventTypes} onChange={setEventTypes} error={errors.eventTypes} />
    </FormDialog>
  );
}
