import { useState } from 'react';
import { fieldErrorsOf } from '../api/errors.ts';
import { DoneNotice } from '../ui/DoneNotice.tsx';
import { Field } from '../ui/Field.tsx';
import { FormDialog } from '../ui/FormDialog.tsx';
import { useAddSystemWallets } from './useProject.ts';

const FIELDS = ['networkType', 'count'];
/** The most add-system-wallets adds in one request. */
const MAX_COUNT = 64;

type NetworkType = 'mainnet' | 'testnet';

/**
 * Adds wallets of the project's custody type to its pool of a network type (add-system-wallets). The API's refusal
 * (the pool's limit reached, a shared wallet, a custodian not configured) is shown as it says it.
 */
export function AddWalletsDialog({ isOpen, onClose }: { isOpen: boolean; onClose: () => void }) {
  const [networkType, setNetworkType] = useState<NetworkType>('mainnet');
  const [count, setCount] = useState('1');
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});
  const add = useAddSystemWallets();
  const errors = { ...fieldErrorsOf(add.error), ...localErrors };
  const close = () => {
    add.reset();
    setLocalErrors({});
    onClose();
  };
  const submit = () => {
    const n = /^\d+$/.test(count.trim()) ? Number(count.trim()) : Number.NaN;
    const valid = Number.isInteger(n) && n >= 1 && n <= MAX_COUNT;
    setLocalErrors(valid ? {} : { count: `A whole number from 1 to ${MAX_COUNT}` });
    if (valid) return add.mutateAsync({ networkType, count: n });
  };
  return (
    <FormDialog
      title="Add system wallets"
      isOpen={isOpen}
      onClose={close}
      lead={
        <p>
          New wallets of the project’s custody type join the pool, and transactions are spread over them. They hold
          nothing: fund each before it sends.
        </p>
      }
      error={add.error}
      fields={FIELDS}
      submit="Add wallets"
      pending={add.isPending}
      onSubmit={submit}
      done={
        add.data && (
          <DoneNotice onDone={close}>
            <p>
              {add.variables.count} {add.variables.networkType} wallet{add.variables.count === 1 ? '' : 's'} added: fund{' '}
              {add.variables.count === 1 ? 'it' : 'each'} before {add.variables.count === 1 ? 'it sends' : 'they send'}.
            </p>
          </DoneNotice>
        )
      }
    >
      <Field label="Network type" error={errors.networkType}>
        <select value={networkType} onChange={(e) => setNetworkType(e.target.value as NetworkType)}>
          <option value="mainnet">mainnet</option>
          <option value="testnet">testnet</option>
        </select>
      </Field>
      <Field label="How many" hint={`1 to ${MAX_COUNT} wallets.`} error={errors.count}>
        <input
          type="number"
          inputMode="numeric"
          min={1}
          max={MAX_COUNT}
          step={1}
          value={count}
          onChange={(e) => setCount(e.target.value)}
        />
      </Field>
    </FormDialog>
  );
}
