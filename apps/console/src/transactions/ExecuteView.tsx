import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useMemo, useState } from 'react';
import { AbiParamInput } from '../abiForm/AbiParamInput.tsx';
import { emptyValue, FormErrors, type FormValue, toFunctionArgs } from '../abiForm/abiValues.ts';
import { fieldErrorsOf, otherErrors } from '../api/errors.ts';
import { functionItem, structsOf } from '../contracts/abiText.ts';
import { useActivatedFunctions, useContracts } from '../contracts/useContracts.ts';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Field } from '../ui/Field.tsx';
import { Loading } from '../ui/Loading.tsx';
import { useExecuteTransaction } from './useTransactions.ts';

const executeRoute = getRouteApi('/_console/execute/$functionId');

/** The execute form of one activated function, generated from its ABI signature. */
export function ExecuteView() {
  const { functionId } = executeRoute.useParams();
  const { contractId } = executeRoute.useSearch();
  const functions = useActivatedFunctions(contractId);
  const contracts = useContracts();
  const contract = contracts.data?.contracts.find((c) => c.id === contractId);
  const activated = functions.data?.contractActivatedFunctions.find((f) => String(f.id) === functionId);
  return (
    <>
      <h1>Execute a function</h1>
      {functions.isPending && <Loading what="the function" />}
      {functions.isError && <ErrorNotice error={functions.error} onRetry={() => functions.refetch()} />}
      {functions.data && !activated && (
        <ErrorNotice
          title="Not active."
          error={new Error(`Function ${functionId} is not an active function of contract ${contractId}.`)}
        />
      )}
      {contracts.isError && <ErrorNotice error={contracts.error} onRetry={() => contracts.refetch()} />}
      {activated && contract && (
        <ExecuteForm
          functionId={activated.id}
          signature={activated.formattedAbiFunction}
          structs={structsOf(contract.formattedAbi)}
        />
      )}
    </>
  );
}

function ExecuteForm({ functionId, signature, structs }: { functionId: number; signature: string; structs: string[] }) {
  const fn = useMemo(() => functionItem(signature, structs), [signature, structs]);
  const [values, setValues] = useState<FormValue[]>(() => fn.inputs.map(emptyValue));
  const [idempotencyKey, setIdempotencyKey] = useState<string>(() => crypto.randomUUID());
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});
  const execute = useExecuteTransaction();
  const navigate = useNavigate();
  // The API names an argument `functionArgs[1].amount`: the same paths as the form's, after `functionArgs`.
  const apiErrors = fieldErrorsOf(execute.error);
  const argErrors = Object.fromEntries(
    Object.entries(apiErrors)
      .filter(([field]) => field.startsWith('functionArgs['))
      .map(([field, message]) => [field.slice('functionArgs'.length), message]),
  );
  const errors = { ...argErrors, ...localErrors };
  const unplaced = otherErrors(apiErrors, ['functionArgs', 'idempotencyKey']);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    let functionArgs: string[];
    try {
      ({ functionArgs } = toFunctionArgs(fn, values));
    } catch (error) {
      if (!(error instanceof FormErrors)) throw error;
      setLocalErrors(error.errors);
      return;
    }
    setLocalErrors({});
    const { transaction } = await execute.mutateAsync({
      contractActivatedFunctionId: functionId,
      functionArgs,
      idempotencyKey,
    });
    await navigate({ to: '/transactions/$transactionId', params: { transactionId: transaction.id } });
  };
  return (
    <form onSubmit={(event) => submit(event).catch(() => {})} noValidate className="card">
      <p className="mono">{signature}</p>
      {execute.isError && Object.keys(apiErrors).length === 0 && <ErrorNotice error={execute.error} />}
      {(unplaced.length > 0 || errors['']) && (
        <div className="notice error" role="alert">
          {[errors[''], ...unplaced].filter(Boolean).join('; ')}
        </div>
      )}
      {fn.inputs.length === 0 && <p className="muted">This function takes no argument.</p>}
      {fn.inputs.map((input, i) => (
        <AbiParamInput
          key={`${input.name ?? ''}-${i}`}
          param={input}
          name={input.name || `argument ${i + 1}`}
          value={values[i] ?? emptyValue(input)}
          onChange={(next) => setValues((current) => current.map((v, j) => (j === i ? next : v)))}
          path={`[${i}]`}
          errors={errors}
          disabled={execute.isPending}
        />
      ))}
      <Field
        label="Idempotency key"
        hint="Sending again with this key never makes a second transaction. A new key makes a new one."
        error={apiErrors.idempotencyKey}
      >
        <input value={idempotencyKey} onChange={(event) => setIdempotencyKey(event.target.value)} spellCheck={false} />
      </Field>
      <div className="row">
        <button type="submit" className="primary" disabled={execute.isPending}>
          Execute
        </button>
        <button type="button" onClick={() => setIdempotencyKey(crypto.randomUUID())}>
          New idempotency key
        </button>
      </div>
    </form>
  );
}
