import type { ContractActivatedFunction } from '@mountain/public-api-client';
import { useState } from 'react';
import { fieldErrorsOf } from '../api/errors.ts';
import { Field } from '../ui/Field.tsx';
import { FormDialog } from '../ui/FormDialog.tsx';
import { formatLimit, isWei } from '../ui/wei.ts';
import { type SpendingLimits, useSetFunctionActive } from './useContracts.ts';

const LIMITS = [
  { field: 'maxValuePerTransaction', label: 'Most value per transaction (wei)', what: 'one transaction' },
  { field: 'maxValuePerDay', label: 'Most value per day (wei)', what: 'all its transactions of a UTC day' },
] as const;

/**
 * Activates a payable function (or receive()) with its spending limits, or changes the limits of an active one:
 * what one transaction, and all of a UTC day's together, may send. Empty or 0: no value.
 */
export function LimitsDialog({
  contractId,
  signature,
  active,
  coin,
  isOpen,
  onClose,
}: {
  contractId: number;
  signature: string;
  /** The activation, when the function is active already: its limits are changed. */
  active: ContractActivatedFunction | undefined;
  coin: string;
  isOpen: boolean;
  onClose: () => void;
}) {
  const [limits, setLimits] = useState<SpendingLimits>(() => ({
    maxValuePerTransaction: active && active.maxValuePerTransaction !== '0' ? active.maxValuePerTransaction : '',
    maxValuePerDay: active && active.maxValuePerDay !== '0' ? active.maxValuePerDay : '',
  }));
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});
  const setActive = useSetFunctionActive(contractId);
  const errors = { ...fieldErrorsOf(setActive.error), ...localErrors };

  const submit = async () => {
    const sent: SpendingLimits = {
      maxValuePerTransaction: limits.maxValuePerTransaction.trim() || '0',
      maxValuePerDay: limits.maxValuePerDay.trim() || '0',
    };
    const problems: Record<string, string> = {};
    for (const { field } of LIMITS) {
      if (!isWei(sent[field])) problems[field] = 'A whole number of wei, in decimal digits (1 ETH is 10^18 wei)';
    }
    setLocalErrors(problems);
    if (Object.keys(problems).length > 0) return;
    await setActive.mutateAsync({ formattedAbiFunction: signature, active: true, limits: sent });
    onClose();
  };
  return (
    <FormDialog
      title={active ? 'Change the spending limits' : 'Activate a payable function'}
      isOpen={isOpen}
      onClose={onClose}
      lead={
        <p>
          <span className="mono">{signature}</span> takes value. Its transactions may send at most these amounts; empty
          or 0 allows no value.
        </p>
      }
      error={setActive.error}
      fields={LIMITS.map((l) => l.field)}
      submit={active ? 'Save the limits' : 'Activate'}
      pending={setActive.isPending}
      onSubmit={submit}
    >
      {LIMITS.map(({ field, label, what }) => {
        const text = limits[field].trim() || '0';
        return (
          <Field
            key={field}
            label={label}
            hint={isWei(text) ? `For ${what}: ${formatLimit(text, coin)}` : `For ${what}, in wei`}
            error={errors[field]}
          >
            <input
              value={limits[field]}
              onChange={(event) => {
                setLimits((current) => ({ ...current, [field]: event.target.value }));
                setLocalErrors(({ [field]: _changed, ...others }) => others);
              }}
              inputMode="numeric"
              placeholder="0"
              spellCheck={false}
              autoComplete="off"
            />
          </Field>
        );
      })}
    </FormDialog>
  );
}
