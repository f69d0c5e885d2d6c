import { Field } from '../ui/Field.tsx';
import { formatTime } from '../ui/format.ts';
import { useTransactions } from './useTransactions.ts';

/** How many of the project's latest transactions the field offers (those on the form's network among them). */
const RECENT = 50;

/**
 * The transaction that must succeed before this one is sent (`afterTransactionId`): one of the project's latest on
 * the same network, or none.
 */
export function AfterTransactionField({
  networkId,
  value,
  onChange,
  error,
  disabled,
}: {
  networkId: number;
  value: string;
  onChange: (value: string) => void;
  error: string | undefined;
  disabled: boolean;
}) {
  const recent = useTransactions(undefined, 1, RECENT);
  const choices = (recent.data?.data.transactions ?? []).filter((t) => t.networkId === networkId);
  const hint = recent.isError
    ? 'The latest transactions could not be loaded: this one is sent at once.'
    : 'Optional. This one stays created until the chosen transaction (same project and network) succeeds, then is sent; if that one fails, this one fails too, never sent.';
  return (
    <Field label="After transaction" hint={hint} error={error}>
      <select value={value} onChange={(event) => onChange(event.target.value)} disabled={disabled}>
        <option value="">None: send at once</option>
        {choices.map((t) => (
          <option key={t.id} value={t.id}>
            {t.id} · {t.status} · {formatTime(t.createdAt)}
          </option>
        ))}
      </select>
    </Field>
  );
}
