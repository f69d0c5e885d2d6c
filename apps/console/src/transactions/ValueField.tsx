import type { ContractActivatedFunction } from '@mountain/public-api-client';
import { Field } from '../ui/Field.tsx';
import { formatLimit, formatWei, isWei } from '../ui/wei.ts';

/** What the activation lets a transaction send, and what the value typed in is, in the network's coin. */
export function limitsHint(limits: ContractActivatedFunction, value: string, coin: string): string {
  const allowed =
    limits.maxValuePerTransaction === '0'
      ? 'This activation allows no value: an editor can raise its limits on the Contracts page.'
      : `At most ${formatLimit(limits.maxValuePerTransaction, coin)} per transaction, and ${formatLimit(limits.maxValuePerDay, coin)} per day (UTC) for all of its transactions.`;
  const typed = value.trim();
  return typed !== '' && isWei(typed) ? `${allowed} Sending ${formatWei(typed, coin)}.` : allowed;
}

/** The value a payable function's transaction sends (wei), with its activation's spending limits beside it. */
export function ValueField({
  value,
  onChange,
  limits,
  coin,
  error,
  disabled,
}: {
  value: string;
  onChange: (value: string) => void;
  limits: ContractActivatedFunction;
  coin: string;
  error: string | undefined;
  disabled: boolean;
}) {
  return (
    <Field label="Value (wei)" hint={limitsHint(limits, value, coin)} error={error}>
      <input
        value={value}
        onChange={(event) => onChange(event.target.value)}
        inputMode="numeric"
        placeholder="0"
        spellCheck={false}
        autoComplete="off"
        disabled={disabled}
      />
    </Field>
  );
}
