import { type AbiParameter, encodeFunctionData, getAddress, type Hex, isAddress, isHex } from 'viem';
import { validationError } from '#api/errors/ApiError.ts';
import { BaseError } from '#api/errors/BaseError.ts';
import type { CallableItem } from './abi.ts';

/** A wrong argument, with where it is inside the argument (e.g. `[2].amount`). */
class ArgumentError extends BaseError {
  override name = 'ArgumentError';
  readonly code = 'VALIDATION_FAILED';
  constructor(
    message: string,
    readonly path = '',
  ) {
    super(message);
  }
  within(segment: string): ArgumentError {
    return new ArgumentError(this.message, `${segment}${this.path}`);
  }
}

const INTEGER = /^(u?)int(\d*)$/;
const FIXED_BYTES = /^bytes(\d+)$/;
const ARRAY = /^(.*)\[(\d*)\]$/;

/**
 * Converts the API's string arguments to the values of the function's ABI types, then encodes the call. A wrong
 * count or value is a 400 naming the argument (`body.functionArgs[1]`).
 *
 * - uint/int: decimal (`-12`, `1000`) or 0x hex, range-checked for the bit size
 * - bool: `true` / `false`; address: 0x + 40 hex digits (any case); bytes, bytesN: 0x hex
 * - string: as given
 * - arrays and tuples: JSON (`[1,2]`, `["0xab…", true]`, or an object by component name for a tuple); the elements
 *   follow the same rules, and may be JSON numbers and booleans as well as strings
 */
export function encodeFunctionArgs(fn: CallableItem, args: readonly string[]): { values: unknown[]; data: Hex } {
  if (fn.type === 'receive') {
    if (args.length === 0) return { values: [], data: '0x' };
    throw validationError([
      { field: 'body.functionArgs', message: `receive() takes no arguments (a plain transfer), got ${args.length}` },
    ]);
  }
  if (args.length !== fn.inputs.length) {
    throw validationError([
      {
        field: 'body.functionArgs',
        message: `${fn.name} takes ${fn.inputs.length} argument(s) (${fn.inputs.map((i) => i.type).join(', ') || 'none'}), got ${args.length}`,
      },
    ]);
  }
  const values = fn.inputs.map((input, index) => {
    try {
      return convert(input, args[index] as string, true);
    } catch (error) {
      if (!(error instanceof ArgumentError)) throw error;
      const name = input.name ? ` (${input.name}: ${input.type})` : ` (${input.type})`;
      throw validationError([
        { field: `body.functionArgs[${index}]${error.path}`, message: `${error.message}${error.path ? '' : name}` },
      ]);
    }
  });
  try {
    return { values, data: encodeFunctionData({ abi: [fn], functionName: fn.name, args: values }) };
  } catch (error) {
    const reason = (error as { shortMessage?: string }).shortMessage ?? (error as Error).message;
    throw validationError([{ field: 'body.functionArgs', message: `cannot be encoded: ${reason}` }]);
  }
}

function convert(param: AbiParameter, raw: unknown, fromString: boolean): unknown {
  const type = param.type;
  const array = ARRAY.exec(type);
  if (array) return convertArray({ ...param, type: array[1] as string }, array[2], raw, fromString);
  if (type === 'tuple') return convertTuple(param as AbiParameter & { components: AbiParameter[] }, raw, fromString);
  const integer = INTEGER.exec(type);
  if (integer) return convertInteger(raw, integer[1] === 'u', Number(integer[2] || 256));
  if (type === 'bool') {
    if (raw === true || raw === 'true') return true;
    if (raw === false || raw === 'false') return false;
    throw new ArgumentError(`must be true or false, got ${show(raw)}`);
  }
  if (type === 'address') {
    if (typeof raw !== 'string' || !isAddress(raw, { strict: false })) {
      throw new ArgumentError(`must be an address (0x followed by 40 hex digits), got ${show(raw)}`);
    }
    return getAddress(raw.toLowerCase());
  }
  if (type === 'string') {
    if (typeof raw !== 'string') throw new ArgumentError(`must be a string, got ${show(raw)}`);
    return raw;
  }
  if (type === 'bytes' || FIXED_BYTES.test(type)) {
    if (typeof raw !== 'string' || !isHex(raw, { strict: true }) || raw.length % 2 !== 0) {
      throw new ArgumentError(`must be 0x-prefixed hex bytes, got ${show(raw)}`);
    }
    const size = FIXED_BYTES.exec(type)?.[1];
    if (size && (raw.length - 2) / 2 !== Number(size)) {
      throw new ArgumentError(`must be exactly ${size} bytes, got ${(raw.length - 2) / 2}`);
    }
    return raw;
  }
  throw new ArgumentError(`has type ${type}, which this API cannot convert`);
}

function convertInteger(raw: unknown, unsigned: boolean, bits: number): bigint {
  let value: bigint;
  if (typeof raw === 'number' && Number.isSafeInteger(raw)) value = BigInt(raw);
  else if (typeof raw === 'string' && /^-?(0|[1-9]\d*)$/.test(raw.trim())) value = BigInt(raw.trim());
  else if (typeof raw === 'string' && /^0x[0-9a-fA-F]+$/.test(raw.trim())) value = BigInt(raw.trim());
  else throw new ArgumentError(`must be an integer in decimal or 0x hex, got ${show(raw)}`);
  const min = unsigned ? 0n : -(2n ** BigInt(bits - 1));
  const max = unsigned ? 2n ** BigInt(bits) - 1n : 2n ** BigInt(bits - 1) - 1n;
  if (value < min || value > max) {
    throw new ArgumentError(`is out of range for ${unsigned ? 'u' : ''}int${bits} (${min} to ${max})`);
  }
  return value;
}

function parseJson(raw: unknown, fromString: boolean, what: string): unknown {
  if (!fromString || typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw);
  } catch {
    throw new ArgumentError(`must be ${what} written as JSON, got ${show(raw)}`);
  }
}

function convertArray(element: AbiParameter, length: string | undefined, raw: unknown, fromString: boolean) {
  const value = parseJson(raw, fromString, 'an array');
  if (!Array.isArray(value)) throw new ArgumentError(`must be a JSON array, got ${show(raw)}`);
  if (length && value.length !== Number(length)) {
    throw new ArgumentError(`must have exactly ${length} elements, got ${value.length}`);
  }
  return value.map((item, i) => {
    try {
      return convert(element, item, false);
    } catch (error) {
      throw error instanceof ArgumentError ? error.within(`[${i}]`) : error;
    }
  });
}

function convertTuple(param: AbiParameter & { components: AbiParameter[] }, raw: unknown, fromString: boolean) {
  const value = parseJson(raw, fromString, 'a tuple (array or object)');
  const components = param.components;
  const byName = value !== null && typeof value === 'object' && !Array.isArray(value);
  if (!Array.isArray(value) && !byName) throw new ArgumentError(`must be a JSON array or object, got ${show(raw)}`);
  if (Array.isArray(value) && value.length !== components.length) {
    throw new ArgumentError(`must have ${components.length} components, got ${value.length}`);
  }
  const converted = components.map((component, i) => {
    const key = byName ? (component.name ?? String(i)) : i;
    const item = byName ? (value as Record<string, unknown>)[key as string] : (value as unknown[])[i];
    if (item === undefined) throw new ArgumentError(`is missing component ${component.name ?? i}`);
    try {
      return convert(component, item, false);
    } catch (error) {
      throw error instanceof ArgumentError ? error.within(byName ? `.${key}` : `[${i}]`) : error;
    }
  });
  // viem encodes a tuple from an object when every component is named, else from an array.
  if (components.every((c) => c.name)) {
    return Object.fromEntries(components.map((c, i) => [c.name as string, converted[i]]));
  }
  return converted;
}

function show(raw: unknown): string {
  const text = typeof raw === 'string' ? `"${raw}"` : JSON.stringify(raw);
  return text && text.length > 60 ? `${text.slice(0, 57)}…` : String(text);
}
