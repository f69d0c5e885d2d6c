import { MountainError } from '@mountain/public-api-client';
import { type FormEvent, useId, useState } from 'react';
import type { AbiFunction } from 'viem';
import { AbiArgsInputs } from '../abiForm/AbiArgsInputs.tsx';
import { argErrorsOf, emptyValue, FormErrors, type FormValue, toFunctionArgs } from '../abiForm/abiValues.ts';
import { fieldErrorsOf, otherErrors } from '../api/errors.ts';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { BlockChoice, type BlockChoiceValue, blockTagOf, LATEST } from './BlockChoice.tsx';
import { ReadResult } from './ReadResult.tsx';
import { useReadFunction } from './useContracts.ts';

/**
 * One view or pure function: its arguments (the execute form's controls, checked and encoded the same way), the
 * block to read at, and what it answered (each output by name and type, and the block) or why it reverted.
 */
export function ReadFunction({
  contractId,
  signature,
  fn,
}: {
  contractId: number;
  signature: string;
  fn: AbiFunction;
}) {
  const [values, setValues] = useState<FormValue[]>(() => fn.inputs.map(emptyValue));
  const [block, setBlock] = useState<BlockChoiceValue>(LATEST);
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});
  const read = useReadFunction();
  const headingId = useId();
  const apiErrors = fieldErrorsOf(read.error);
  const errors = { ...argErrorsOf(apiErrors), ...localErrors };
  const unplaced = otherErrors(apiErrors, ['functionArgs', 'blockTag']);
  const reverted = read.error instanceof MountainError && read.error.code === 'CALL_REVERTED';

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const problems: Record<string, string> = {};
    let functionArgs: string[] = [];
    try {
      ({ functionArgs } = toFunctionArgs(fn, values));
    } catch (error) {
      if (!(error instanceof FormErrors)) throw error;
      Object.assign(problems, error.errors);
    }
    const tag = blockTagOf(block);
    if ('error' in tag) problems.blockTag = tag.error;
    setLocalErrors(problems);
    if (Object.keys(problems).length > 0 || 'error' in tag) return;
    read.mutate({ contractId, formattedAbiFunction: signature, functionArgs, blockTag: tag.blockTag });
  };
  return (
    <form onSubmit={submit} noValidate className="card read-function" aria-labelledby={headingId}>
      <h4 id={headingId} className="mono">
        {signature}
      </h4>
      <AbiArgsInputs
        inputs={fn.inputs}
        values={values}
        setValues={setValues}
        errors={errors}
        disabled={read.isPending}
      />
      {(unplaced.length > 0 || errors['']) && (
        <div className="notice error" role="alert">
          {[errors[''], ...unplaced].filter(Boolean).join('; ')}
        </div>
      )}
      <BlockChoice
        value={block}
        onChange={setBlock}
        error={errors.blockTag ?? apiErrors.blockTag}
        disabled={read.isPending}
      />
      <div className="row">
        <button type="submit" className="primary" disabled={read.isPending}>
          Read
        </button>
      </div>
      {read.isError && Object.keys(apiErrors).length === 0 && (
        <ErrorNotice title={reverted ? 'The call reverted.' : undefined} error={read.error} />
      )}
      <ReadResult outputs={fn.outputs} answer={read.isSuccess ? read.data : undefined} />
    </form>
  );
}
