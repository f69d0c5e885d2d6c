import type { ContractActivatedFunction } from '@mountain/public-api-client';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useMemo, useState } from 'react';
import { AbiArgsInputs } from '../abiForm/AbiArgsInputs.tsx';
import { argErrorsOf, emptyValue, FormErrors, type FormValue, toFunctionArgs } from '../abiForm/abiValues.ts';
import { fieldErrorsOf, otherErrors } from '../api/errors.ts';
import { functionItem, isPayable, isReceive, structsOf } from '../contracts/abiText.ts';
import { useActivatedFunctions, useContracts } from '../contracts/useContracts.ts';
import { NETWORKS } from '../networks/networks.ts';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Field } from '../ui/Field.tsx';
import { Loading } from '../ui/Loading.tsx';
import { isWei } from '../ui/wei.ts';
import { AfterTransactionField } from './AfterTransactionField.tsx';
import { useExecuteTransaction } from './useTransactions.ts';
import { ValueField } from './ValueField.tsx';

const executeRoute = getRouteApi('/_console/execute/$functionId');

/**
 * The execute form of one activated function, generated from its ABI signature; a payable function (or receive())
 * also takes the value to send, within its activation's limits.
 */
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
          activated={activated}
          structs={structsOf(contract.formattedAbi)}
          networkId={contract.networkId}
          coin={NETWORKS[contract.networkId]?.coin ?? 'ETH'}
        />
      )}
    </>
  );
}

function ExecuteForm({
  activated,
  structs,
  networkId,
  coin,
}: {
  activated: ContractActivatedFunction;
  structs: string[];
  networkId: number;
  coin: string;
}) {
  const signature = activated.formattedAbiFunction;
  // receive() takes no argument: a plain transfer of value.
  const fn = useMemo(() => (isReceive(signature) ? undefined : functionItem(signature, structs)), [signature, structs]);
  const inputs = fn?.inputs ?? [];
  const payable = isPayable(signature, structs);
  const [values, setValues] = useState<FormValue[]>(() => inputs.map(emptyValue));
  const [value, setValue] = useState('');
  const [afterTransactionId, setAfterTransactionId] = useState('');
  const [idempotencyKey, setIdempotencyKey] = useState<string>(() => crypto.randomUUID());
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({});
  const execute = useExecuteTransaction();
  const navigate = useNavigate();
  // The API names an argument `functionArgs[1].amount`: the same paths as the form's, after `functionArgs`.
  const apiErrors = fieldErrorsOf(execute.error);
  const errors = { ...argErrorsOf(apiErrors), ...localErrors };
  const unplaced = otherErrors(apiErrors, [
    'functionArgs',
    'idempotencyKey',
    'afterTransactionId',
    ...(payable ? ['value'] : []),
  ]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const problems: Record<string, string> = {};
    let functionArgs: string[] = [];
    try {
      if (fn) ({ functionArgs } = toFunctionArgs(fn, values));
    } catch (error) {
      if (!(error instanceof FormErrors)) throw error;
      Object.assign(problems, error.errors);
    }
    const sent = value.trim() || '0';
    if (payable && !isWei(sent)) problems.value = 'A whole number of wei, in decimal digits (1 ETH is 10^18 wei)';
    setLocalErrors(problems);
    if (Object.keys(problems).length > 0) return;
    const { transaction } = await execute.mutateAsync({
      contractActivatedFunctionId: activated.id,
      functionArgs,
      idempotencyKey,
      ...(payable && sent !== '0' ? { value: sent } : {}),
      ...(afterTransactionId ? { afterTransactionId } : {}),
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
      {inputs.length === 0 && (
        <p className="muted">
          {fn ? 'This function takes no argument.' : 'receive() takes no argument: it is a plain transfer of value.'}
        </p>
      )}
      <AbiArgsInputs
        inputs={inputs}
        values={values}
        setValues={setValues}
        errors={errors}
        disabled={execute.isPending}
      />
      {payable && (
        <ValueField
          value={value}
          onChange={setValue}
          limits={activated}
          coin={coin}
          error={errors.value ?? apiErrors.value}
          disabled={execute.isPending}
        />
      )}
      <AfterTransactionField
        networkId={networkId}
        value={afterTransactionId}
        onChange={setAfterTransactionId}
        error={apiErrors.afterTransactionId}
        disabled={execute.isPending}
      />
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
