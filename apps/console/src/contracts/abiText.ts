// What a person pastes or drops as an ABI, read into the API's formattedAbi (human-readable signatures): a JSON ABI
// (as compilers and explorers give it), a JSON array of signatures, or one signature per line. Checked by viem's
// parser before anything is sent.
import { type Abi, type AbiFunction, formatAbi, formatAbiItem, parseAbi } from 'abitype';

export class AbiTextError extends Error {
  override name = 'AbiTextError';
}

export function readAbiText(text: string): string[] {
  const trimmed = text.trim();
  if (trimmed === '') throw new AbiTextError('Paste an ABI, or drop its file here');
  let signatures: string[];
  if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (error) {
      throw new AbiTextError(`This is not valid JSON: ${(error as Error).message}`);
    }
    // A compiler artifact holds its ABI under "abi".
    const list = Array.isArray(parsed) ? parsed : (parsed as { abi?: unknown }).abi;
    if (!Array.isArray(list)) throw new AbiTextError('A JSON ABI is an array (or an object with an "abi" array)');
    if (list.every((item) => typeof item === 'string')) signatures = list as string[];
    else {
      try {
        signatures = [...formatAbi(list as Abi)];
      } catch (error) {
        throw new AbiTextError(`This JSON ABI cannot be read: ${(error as Error).message.split('\n')[0]}`);
      }
    }
  } else {
    signatures = trimmed
      .split('\n')
      .map((line) => line.trim().replace(/[;,]$/, ''))
      .filter((line) => line !== '' && !line.startsWith('//'));
  }
  // Each line on its own, with the ABI's structs (a signature may name one), so an error names its line.
  const structs = structsOf(signatures);
  signatures.forEach((signature, i) => {
    try {
      parseSignatures(signature.startsWith('struct ') ? [signature] : [...structs, signature]);
    } catch (error) {
      const reason = (error as Error).message.split('\n')[0];
      throw new AbiTextError(`Line ${i + 1} (${signature}) is not a valid signature: ${reason}`);
    }
  });
  if (!signatures.some((s) => s.startsWith('function '))) throw new AbiTextError('The ABI has no function');
  return signatures;
}

/** The struct definitions of an ABI (`struct Point { int64 x; int64 y; }`): signatures may name them. */
export const structsOf = (formattedAbi: readonly string[]) => formattedAbi.filter((s) => s.startsWith('struct '));

/**
 * One signature in canonical writing (structs expanded to tuples), so the ABI's and the API's spellings of a function
 * compare equal.
 */
export function canonical(signature: string, structs: readonly string[] = []): string {
  try {
    const item = parseSignatures([...structs, signature])[0];
    return item ? formatAbiItem(item) : signature;
  } catch {
    return signature;
  }
}

/** A function's ABI item, from its signature and the structs it may name. */
export function functionItem(signature: string, structs: readonly string[]): AbiFunction {
  const item = parseSignatures([...structs, signature]).find((i) => i.type === 'function');
  if (!item) throw new AbiTextError(`${signature} is not a function`);
  return item as AbiFunction;
}

/** The parameter names of a function, in order (`''` for an unnamed one); none for receive() or what does not parse. */
export function parameterNames(signature: string, structs: readonly string[]): string[] {
  if (isReceive(signature)) return [];
  try {
    return functionItem(signature, structs).inputs.map((input) => input.name ?? '');
  } catch {
    return [];
  }
}

/** `receive() external payable`: what a plain transfer of value runs; the API activates it as a payable entry. */
export const isReceive = (signature: string) => /^receive\s*\(\s*\)/.test(signature.trim());

/** The entries a transaction can call, as the contract's ABI writes them: its functions and its receive(). */
export const callableEntries = (formattedAbi: readonly string[]) =>
  formattedAbi.filter((s) => s.startsWith('function ') || isReceive(s));

/** What an entry does with state and value (receive() is payable); undefined for one that does not parse. */
export function mutabilityOf(
  signature: string,
  structs: readonly string[],
): AbiFunction['stateMutability'] | undefined {
  if (isReceive(signature)) return 'payable';
  try {
    return functionItem(signature, structs).stateMutability;
  } catch {
    return undefined;
  }
}

/** Whether the entry takes value: a payable function, or receive(). */
export const isPayable = (signature: string, structs: readonly string[]) =>
  mutabilityOf(signature, structs) === 'payable';

/** Whether the entry only reads (view or pure): it is read, never activated. */
export const isReadOnly = (mutability: string | undefined) => mutability === 'view' || mutability === 'pure';

/** The view and pure functions of an ABI (what can be read), each with its parsed item. */
export function readableFunctions(formattedAbi: readonly string[]): { signature: string; fn: AbiFunction }[] {
  const structs = structsOf(formattedAbi);
  return formattedAbi.flatMap((signature) => {
    if (!signature.startsWith('function ')) return [];
    try {
      const fn = functionItem(signature, structs);
      return isReadOnly(fn.stateMutability) ? [{ signature, fn }] : [];
    } catch {
      return [];
    }
  });
}

/** viem's parser over signatures known only at run time (its types want literals). */
const parseSignatures = (signatures: readonly string[]): Abi => parseAbi(signatures as string[]) as unknown as Abi;
