import { useState } from 'react';
import { fieldErrorsOf } from '../api/errors.ts';
import { DoneNotice } from '../ui/DoneNotice.tsx';
import { Field } from '../ui/Field.tsx';
import { FormDialog } from '../ui/FormDialog.tsx';
import { fromLocalInput, toLocalInput } from './localTime.ts';
import { useReplay, type WebhookEndpoint } from './useWebhooks.ts';

const FIELDS = ['endpointId', 'since', 'until', 'onlyFailed'];

/**
 * Send an endpoint's messages of a time window again (the failed ones, or all): each keeps its `webhook-id`, so a
 * receiver that de-duplicates on it processes each once. The answer says how many were queued.
 */
export function ReplayDialog({
  endpoint,
  onClose,
  around,
}: {
  endpoint: WebhookEndpoint | null;
  onClose: () => void;
  /** An attempt's time: the window is then the hour before it, to just after it (else the last hour). */
  around?: string;
}) {
  const [since, setSince] = useState(() =>
    toLocalInput(new Date((around ? Date.parse(around) : Date.now()) - 3_600_000)),
  );
  const [until, setUntil] = useState(() => (around ? toLocalInput(new Date(Date.parse(around) + 60_000)) : ''));
  const [onlyFailed, setOnlyFailed] = useState(true);
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});
  const replay = useReplay();
  const errors = { ...fieldErrorsOf(replay.error), ...localErrors };
  const close = () => {
    replay.reset();
    setLocalErrors({});
    onClose();
  };
  const submit = () => {
    const from = fromLocalInput(since);
    const to = fromLocalInput(until);
    const problems: Record<string, string> = {};
    if (!from) problems.since = 'Choose when the window starts';
    if (from && to && to <= from) problems.until = 'The end comes after the start';
    setLocalErrors(problems);
    if (!endpoint || !from || Object.keys(problems).length > 0) return;
    replay.mutate({ endpointId: endpoint.id, since: from, ...(to ? { until: to } : {}), onlyFailed });
  };
  return (
    <FormDialog
      title="Replay messages"
      isOpen={endpoint !== null}
      onClose={close}
      lead={
        <p>
          Messages of <span className="mono">{endpoint?.url}</span> created in the window, sent again at a bounded rate.
        </p>
      }
      error={replay.error}
      fields={FIELDS}
      submit="Replay"
      pending={replay.isPending}
      onSubmit={submit}
      done={
        replay.data && (
          <DoneNotice onDone={close}>
            <p>
              {replay.data.queuedCount} message(s) queued again, with their original webhook-id
              {endpoint?.enabled ? '.' : ': they are sent once the endpoint is enabled.'}
            </p>
          </DoneNotice>
        )
      }
    >
      <Field label="From (your time)" error={errors.since}>
        <input type="datetime-local" value={since} onChange={(e) => setSince(e.target.value)} />
      </Field>
      <Field label="Until (your time)" hint="Optional: now when empty." error={errors.until}>
        <input type="datetime-local" value={until} onChange={(e) => setUntil(e.target.value)} />
      </Field>
      <label className="row">
        <input type="checkbox" checked={onlyFailed} onChange={(e) => setOnlyFailed(e.target.checked)} />
        Only the failed ones
      </label>
    </FormDialog>
  );
}
