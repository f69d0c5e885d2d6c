import type { NetworkId } from '@mountain/public-api-client';
import { type DragEvent, type FormEvent, useState } from 'react';
import { fieldErrorsOf, otherErrors } from '../api/errors.ts';
import { NETWORK_IDS, NETWORKS } from '../networks/networks.ts';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Field } from '../ui/Field.tsx';
import { Modal } from '../ui/Modal.tsx';
import { AbiTextError, readAbiText } from './abiText.ts';
import { useImportContract } from './useContracts.ts';

/** Import a contract: network, address, and its ABI pasted or dropped as a file, read and checked before sending. */
export function ImportContractDialog({ isOpen, onClose }: { isOpen: boolean; onClose: () => void }) {
  const [networkId, setNetworkId] = useState<NetworkId>(1337);
  const [address, setAddress] = useState('');
  const [abiText, setAbiText] = useState('');
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});
  const importContract = useImportContract();
  const apiErrors = fieldErrorsOf(importContract.error);
  const errors = { ...apiErrors, ...localErrors };
  const abiError = errors.formattedAbi ?? Object.entries(errors).find(([f]) => f.startsWith('formattedAbi['))?.[1];

  const onDrop = async (event: DragEvent<HTMLTextAreaElement>) => {
    event.preventDefault();
    const file = event.dataTransfer.files[0];
    if (file) setAbiText(await file.text());
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
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
  const unplaced = otherErrors(apiErrors, ['networkId', 'address', 'formattedAbi']);
  return (
    <Modal title="Import a contract" isOpen={isOpen} onClose={onClose}>
      <form onSubmit={(event) => submit(event).catch(() => {})} noValidate>
        {importContract.isError && Object.keys(apiErrors).length === 0 && <ErrorNotice error={importContract.error} />}
        {unplaced.length > 0 && (
          <div className="notice error" role="alert">
            {unplaced.join('; ')}
          </div>
        )}
        <Field label="Network" error={errors.networkId}>
          <select value={networkId} onChange={(event) => setNetworkId(Number(event.target.value) as NetworkId)}>
            {NETWORK_IDS.map((id) => (
              <option key={id} value={id}>
                {NETWORKS[id].name} ({id})
              </option>
            ))}
          </select>
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
        <div className="row">
          <button type="submit" className="primary" disabled={importContract.isPending}>
            Import
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Modal>
  );
}
