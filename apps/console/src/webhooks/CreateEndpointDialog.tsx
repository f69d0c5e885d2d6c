import { type FormEvent, useState } from 'react';
import { fieldErrorsOf, otherErrors } from '../api/errors.ts';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Field } from '../ui/Field.tsx';
import { Modal } from '../ui/Modal.tsx';
import { EventTypeChoice } from './EventTypeChoice.tsx';
import { SecretShown } from './SecretShown.tsx';
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
  const apiErrors = fieldErrorsOf(create.error);
  const errors = { ...apiErrors, ...localErrors };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
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
  const unplaced = otherErrors(apiErrors, FIELDS);
  return (
    <Modal title="Add an endpoint" isOpen={isOpen} onClose={close}>
      {secret ? (
        <SecretShown
          lead="Added. Its signing secret, shown this once (verify each webhook's signature with it):"
          secret={secret}
          onDone={close}
        />
      ) : (
        <form onSubmit={(event) => submit(event).catch(() => {})} noValidate>
          {create.isError && Object.keys(apiErrors).length === 0 && <ErrorNotice error={create.error} />}
          {unplaced.length > 0 && (
            <div className="notice error" role="alert">
              {unplaced.join('; ')}
            </div>
          )}
          <Field label="Endpoint URL" error={errors.url}>
            <input value={url} onChange={(e) => setUrl(e.target.value)} type="url" spellCheck={false} />
          </Field>
          <Field label="Description" hint="Optional: a note for you." error={errors.description}>
            <input value={description} onChange={(e) => setDescription(e.target.value)} maxLength={512} />
          </Field>
          <EventTypeChoice chosen={eventTypes} onChange={setEventTypes} error={errors.eventTypes} />
          <div className="row">
            <button type="submit" className="primary" disabled={create.isPending}>
              Add
            </button>
            <button type="button" onClick={close}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </Modal>
  );
}
