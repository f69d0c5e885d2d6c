// The execute form's values, one per ABI parameter, and their conversion into what the API takes (functionArgs: one
// string per parameter; arrays and tuples as JSON) and into viem values, encoded before anything is sent: a value
// the API would refuse is shown beside its field instead.
import { type AbiFunction, type AbiParameter, encodeFunctionData, type Hex, isAddress, isHex } from 'viem';

/** A leaf's text, or the elements (array) or components (tuple) of a composite parameter. */
export type FormValue = string | FormValue[];

const INTEGER = /^(u?)int(\d*)$/;
const FIXED_BYTES = /^bytes(\d+)$/;
const ARRAY = /^(.*)\[(\d*)\]$/;

type TupleParameter = AbiParameter & { components: readonly AbiParameter[] };

/** The element parameter and fixed length (undefined: dynamic) of an array type, or undefined. */
export function arrayOf(param: AbiParameter): { element: AbiParameter; length: number | undefined } | undefined {
  const match = ARRAY.exec(param.type);
  if (!match) return undefined;
  const { name: _name, ...rest } = param as AbiParameter & { name?: string };
  return {
    element: { ...rest, type: match[1] as string } as AbiParameter,
    length: match[2] ? Number(match[2]) : undefined,
  };
}

export function componentsOf(param: AbiParameter): readonly AbiParameter[] | undefined {
  return param.type === 'tuple' ? (param as TupleParameter).components : undefined;
}

/** The starting value of a parameter: empty text, `false`, a fixed array's elements, a tuple's components. */
export function emptyValue(param: AbiParameter): FormValue {
  const array = arrayOf(param);
  if (array)
    return array.length === undefined ? [] : Array.from({ length: array.length }, () => emptyValue(array.element));
  const components = componentsOf(param);
  if (components) return components.map(emptyValue);
  return param.type === 'bool' ? 'false' : '';
}

/** Errors by path (`[0]`, `[1][2].amount`): the same paths the API names after `body.functionArgs`. */
export class FormErrors extends Error {
  override name = 'FormErrors';
  constructor(readonly errors: Record<string, string>) {
    super(
      Object.entries(errors)
        .map(([path, message]) => `functionArgs${path}: ${message}`)
        .join('; '),
    );
  }
}

/** A leaf checked and converted: what viem encodes, and what the API reads back from the string. */
function convertLeaf(type: string, text: string): { value: unknown; json: unknown } {
  const trimmed = text.trim();
  const integer = INTEGER.exec(type);
  if (integer) {
    const unsigned = integer[1] === 'u';
    const bits = Number(integer[2] || 256);
    if (!/^-?(0|[1-9]\d*)$/.test(trimmed) && !/^0x[0-9a-fA-F]+$/.test(trimmed)) {
      throw new Error('must be an integer in decimal or 0x hex');
    }
    const value = BigInt(trimmed);
    const min = unsigned ? 0n : -(2n ** BigInt(bits - 1));
    const max = unsigned ? 2n ** BigInt(bits) - 1n : 2n ** BigInt(bits - 1) - 1n;
    if (value < min || value > max) throw new Error(`is out of range for ${type} (${min} to ${max})`);
    return { value, json: trimmed };
  }
  if (type === 'bool') {
    if (trimmed !== 'true' && trimmed !== 'false') throw new Error('must be true or false');
    return { value: trimmed === 'true', json: trimmed === 'true' };
  }
  if (type === 'address') {
    if (!isAddress(trimmed, { strict: false })) throw new Error('must be an address (0x followed by 40 hex digits)');
    return { value: trimmed, json: trimmed };
  }
  if (type === 'string') return { value: text, json: text };
  if (type === 'bytes' || FIXED_BYTES.test(type)) {
    if (!isHex(trimmed, { strict: true }) || trimmed.length % 2 !== 0) throw new Error('must be 0x-prefixed hex bytes');
    const size = FIXED_BYTES.exec(type)?.[1];
    if (size && (trimmed.length - 2) / 2 !== Number(size)) {
      throw new Error(`must be exactly ${size} bytes, got ${(trimmed.length - 2) / 2}`);
    }
    return { value: trimmed, json: trimmed };
  }
  throw new Error(`has type ${type}, which the console cannot fill in`);
}

function convert(
  param: AbiParameter,
  raw: FormValue,
  path: string,
  errors: Record<string, string>,
): { value: unknown; json: unknown } {
  const array = arrayOf(param);
  if (array) {
    const items = Array.isArray(raw) ? raw : [];
    if (array.length !== undefined && items.length !== array.length) {
      errors[path] = `must have exactly ${array.length} elements`;
    }
    const converted = items.map((item, i) => convert(array.element, item, `${path}[${i}]`, errors));
    return { value: converted.map((c) => c.value), json: converted.map((c) => c.json) };
  }
  const components = componentsOf(param);
  if (components) {
    const items = Array.isArray(raw) ? raw : [];
    const converted = components.map((component, i) =>
      convert(component, items[i] ?? emptyValue(component), `${path}${segment(component, i)}`, errors),
    );
    // viem encodes a tuple from an object when every component is named, else from an array.
    const named = components.every((c) => c.name);
    const value = named
      ? Object.fromEntries(components.map((c, i) => [c.name as string, converted[i]?.value]))
      : converted.map((c) => c.value);
    return { value, json: converted.map((c) => c.json) };
  }
  try {
    return convertLeaf(param.type, typeof raw === 'string' ? raw : '');
  } catch (error) {
    errors[path] = (error as Error).message;
    return { value: undefined, json: null };
  }
}

/** A tuple component's path segment: `.name`, or `[i]` for an unnamed one (as the API names them). */
export function segment(component: AbiParameter, index: number): string {
  return component.name ? `.${component.name}` : `[${index}]`;
}

/**
 * Checks every value and encodes the call. Resolves with the API's `functionArgs` (a string per parameter: leaves as
 * written, arrays and tuples as JSON arrays) and the call data; throws `FormErrors` naming each wrong value.
 */
export function toFunctionArgs(fn: AbiFunction, values: readonly FormValue[]): { functionArgs: string[]; data: Hex } {
  const errors: Record<string, string> = {};
  const converted = fn.inputs.map((input, i) => convert(input, values[i] ?? emptyValue(input), `[${i}]`, errors));
  if (Object.keys(errors).length > 0) throw new FormErrors(errors);
  let data: Hex;
  try {
    data = encodeFunctionData({ abi: [fn], functionName: fn.name, args: converted.map((c) => c.value) });
  } catch (error) {
    throw new FormErrors({ '': (error as { shortMessage?: string }).shortMessage ?? (error as Error).message });
  }
  const functionArgs = converted.map(({ json }) => (typeof json === 'string' ? json : JSON.stringify(json)));
  return { functionArgs, data };
}

/** The API's errors of the arguments (`functionArgs[1].amount`) by the form's paths (`[1].amount`). */
export function argErrorsOf(fieldErrors: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(fieldErrors)
      .filter(([field]) => field.startsWith('functionArgs['))
      .map(([field, message]) => [field.slice('functionArgs'.length), message]),
  );
}
