import type { NetworkId } from '@mountain/public-api-client';
import { type DragEvent, useState } from 'react';
import { fieldErrorsOf } from '../api/errors.ts';
import { NetworkSelect } from '../networks/NetworkSelect.tsx';
import { Field } from '../ui/Field.tsx';
import { FormDialog } from '../ui/FormDialog.tsx';
import { AbiTextError, readAbiText } from './abiText.ts';
import { useImportContract } from './useContracts.ts';

/** Import a contract: network, address, and its ABI pasted or dropped as a file, read and checked before sending. */
export function ImportContractDialog({ isOpen, onClose }: { isOpen: boolean; onClose: () => void }) {
  const [networkId, setNetworkId] = useState<NetworkId>(1337);
  const [address, setAddress] = useState('');
  const [abiText, setAbiText] = useState('');
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});
  const importContract = useImportContract();
  const errors = { ...fieldErrorsOf(importContract.error), ...localErrors };
  const abiError = errors.formattedAbi ?? Object.entries(errors).find(([f]) => f.startsWith('formattedAbi['))?.[1];

  const onDrop = async (event: DragEvent<HTMLTextAreaElement>) => {
    event.preventDefault();
    const file = event.dataTransfer.files[0];
    if (file) setAbiText(await file.text());
  };
  const submit = async () => {
    const problems: Record<string, string> = {};
    if (!/^0x[0-9a-fA-F]{40}$/.test(address.trim())) problems.address = 'An address is 0x followed by 40 hex digits';
    let formattedAbi: string[] = [];
    try {
      formattedAbi = readAbiText(abiText);
    } catch (error) {
      if (!(error instanceof AbiTextError)) throw error;
      problems.formattedAbi = error.message;
    }
    setLocalErrors(problems);
    if (Object.keys(problems).length > 0) return;
    await importContract.mutateAsync({ networkId, address: address.trim(), formattedAbi });
    setAddress('');
    setAbiText('');
    onClose();
  };
  return (
    <FormDialog
      title="Import a contract"
      isOpen={isOpen}
      onClose={onClose}
      error={importContract.error}
      fields={['networkId', 'address', 'formattedAbi']}
      submit="Import"
      pending={importContract.isPending}
      onSubmit={submit}
    >
      <Field label="Network" error={errors.networkId}>
        <NetworkSelect value={networkId} onChange={setNetworkId} />
      </Field>
      <Field label="Contract address" error={errors.address}>
        <input
          value={address}
          onChange={(event) => setAddress(event.target.value)}
          spellCheck={false}
          autoComplete="off"
        />
      </Field>
      <Field
        label="ABI"
        hint="A JSON ABI (or a compiler artifact), a JSON array of signatures, or one signature per line. You can drop a file here."
        error={abiError}
      >
        <textarea
          value={abiText}
          onChange={(event) => setAbiText(event.target.value)}
          onDragOver={(event) => event.preventDefault()}
          onDrop={(event) => onDrop(event).catch(() => {})}
          spellCheck={false}
        />
      </Field>
    </FormDialog>
  );
}
