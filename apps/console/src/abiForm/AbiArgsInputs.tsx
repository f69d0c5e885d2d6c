import type { Dispatch, SetStateAction } from 'react';
import type { AbiParameter } from 'viem';
import { AbiParamInput } from './AbiParamInput.tsx';
import { emptyValue, type FormValue } from './abiValues.ts';

interface Props {
  inputs: readonly AbiParameter[];
  values: FormValue[];
  setValues: Dispatch<SetStateAction<FormValue[]>>;
  /** Each wrong value's message, by its path (`[0]`, `[1].amount`). */
  errors: Record<string, string>;
  disabled: boolean;
}

/** One input per argument of a function, named by the ABI (or "argument N"), each with its errors. */
export function AbiArgsInputs({ inputs, values, setValues, errors, disabled }: Props) {
  return inputs.map((input, i) => (
    <AbiParamInput
      key={`${input.name ?? ''}-${i}`}
      param={input}
      name={input.name || `argument ${i + 1}`}
      value={values[i] ?? emptyValue(input)}
      onChange={(next) => setValues((current) => current.map((v, j) => (j === i ? next : v)))}
      path={`[${i}]`}
      errors={errors}
      disabled={disabled}
    />
  ));
}
