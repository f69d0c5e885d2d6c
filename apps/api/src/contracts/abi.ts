import { type Abi, type AbiFunction, toFunctionSignature } from 'viem';
import { ApiError, validationError } from '#api/errors/ApiError.ts';
import { AbiEntryError, parseHumanAbi, parseHumanAbiAsync } from './abiParse.ts';
import { AbiLimitError, type AbiShape, checkAbiShape, STRUCT_SIGNATURE } from './abiShape.ts';

/** A refusal of the ABI parser as the 400 of `field` (`body.formattedAbi[3]`, or the field itself). */
function asValidationError(error: unknown, field: string, indexed: boolean): unknown {
  if (error instanceof AbiLimitError) {
    const at = indexed && error.index !== undefined ? `${field}[${error.index}]` : field;
    return validationError([{ field: at, message: error.message }]);
  }
  if (error instanceof AbiEntryError) {
    const at = indexed ? `${field}[${error.index}]` : field;
    return validationError([{ field: at, message: `does not parse as an ABI entry: ${error.message}` }]);
  }
  return error;
}

/**
 * Parses a contract's human-readable ABI into viem's JSON ABI (struct entries resolved into the others). The limits
 * of abiShape.ts are checked first, in one pass over the text; a 400 names the first entry past a limit or that
 * does not parse, by its index, so the caller can fix exactly that string.
 */
export function parseFormattedAbi(entries: readonly string[], field = 'body.formattedAbi'): Abi {
  try {
    return parseHumanAbi(entries).items as Abi;
  } catch (error) {
    throw asValidationError(error, field, true);
  }
}

/** parseFormattedAbi that gives the event loop back every few milliseconds while it parses (for imports). */
export async function parseFormattedAbiAsync(entries: readonly string[], field = 'body.formattedAbi'): Promise<Abi> {
  try {
    return (await parseHumanAbiAsync(entries)).items as Abi;
  } catch (error) {
    throw asValidationError(error, field, true);
  }
}

/** The struct definitions of a contract's ABI, the context its functions are read in. */
function structContext(formattedAbi: readonly string[]): AbiShape {
  try {
    return checkAbiShape(formattedAbi.filter((e) => STRUCT_SIGNATURE.test(e)));
  } catch (error) {
    // Only an ABI imported before the limits can be past them.
    if (!(error instanceof AbiLimitError)) throw error;
    throw validationError([
      { field: 'body.contractId', message: `the contract's ABI is past a limit of ABIs: ${error.message}` },
    ]);
  }
}

/** The canonical signature of a function given as `function f(uint256 a)` or as `f(uint256)`. */
function signatureOf(formattedFunction: string, context: AbiShape): string | undefined {
  const text = formattedFunction.trim();
  const candidates = text.startsWith('function ') ? [text] : [`function ${text}`, text];
  for (const candidate of candidates) {
    try {
      const item = parseHumanAbi([candidate], context).items[0];
      if (item?.type === 'function') return toFunctionSignature(item);
    } catch (error) {
      if (error instanceof AbiLimitError) throw asValidationError(error, 'body.formattedAbiFunction', false);
      if (!(error instanceof AbiEntryError)) throw error;
      // try the next spelling
    }
  }
  return undefined;
}

/**
 * A contract's `receive()` entry: what a plain transfer of value (empty calldata) runs. Activated, it is how a
 * project allows native transfers to an address (an account without code as well as a contract).
 */
export interface ReceiveItem {
  type: 'receive';
  stateMutability: 'payable';
}

/** What an activation calls: a function of the ABI, or its receive entry. */
export type CallableItem = AbiFunction | ReceiveItem;

/** The signature an activated receive entry is stored under. */
export const RECEIVE_SIGNATURE = 'receive()';

/** `receive() external payable`, as written in an ABI or named in a request (`receive()` is enough). */
const RECEIVE_TEXT = /^receive\s*\(\s*\)(\s+external)?(\s+payable)?$/;

export interface ContractFunction<Item extends CallableItem = CallableItem> {
  /** The entry as written in the contract's ABI, e.g. `function mint(address to, uint256 amount)`. */
  formatted: string;
  /** Canonical signature, e.g. `mint(address,uint256)`, or `receive()`. */
  signature: string;
  item: Item;
}

/** The entries of a human-readable ABI that become items of its parsed form (all but struct definitions). */
export function itemEntries(formattedAbi: readonly string[]): string[] {
  return formattedAbi.filter((e) => !STRUCT_SIGNATURE.test(e));
}

/** What a function is looked up for: activating it (it changes state) or reading it (view or pure). */
export type FunctionUse = 'activate' | 'read';

const READ_ONLY = new Set(['view', 'pure']);

/**
 * Finds a function of a contract's ABI by its human-readable form (argument names and returns may differ; the
 * signature decides). Only state-changing functions can be activated, only view and pure ones read. The
 * contract's parsed ABI is searched; only the given function (and the contract's structs) is parsed.
 */
export function findContractFunction(
  contract: { id: number; formattedAbi: readonly string[]; abi: Abi },
  formattedFunction: string,
  use: 'read',
): ContractFunction<AbiFunction>;
export function findContractFunction(
  contract: { id: number; formattedAbi: readonly string[]; abi: Abi },
  formattedFunction: string,
  use: FunctionUse,
): ContractFunction;
export function findContractFunction(
  contract: { id: number; formattedAbi: readonly string[]; abi: Abi },
  formattedFunction: string,
  use: FunctionUse,
): ContractFunction {
  if (RECEIVE_TEXT.test(formattedFunction.trim())) return findReceive(contract, use);
  const signature = signatureOf(formattedFunction, structContext(contract.formattedAbi));
  if (!signature) {
    throw validationError([
      {
        field: 'body.formattedAbiFunction',
        message: 'does not parse as a function, e.g. `function mint(address to, uint256 amount)`',
      },
    ]);
  }
  const formatted = itemEntries(contract.formattedAbi);
  for (const [index, item] of contract.abi.entries()) {
    if (item.type !== 'function' || toFunctionSignature(item) !== signature) continue;
    const readOnly = READ_ONLY.has(item.stateMutability);
    if (use === 'activate' && readOnly) {
      throw new ApiError('FUNCTION_NOT_STATE_CHANGING', { signature, mutability: item.stateMutability });
    }
    if (use === 'read' && !readOnly) {
      throw new ApiError('FUNCTION_NOT_READABLE', { signature, mutability: item.stateMutability });
    }
    return { formatted: formatted[index] as string, signature, item };
  }
  throw new ApiError('FUNCTION_NOT_IN_ABI', { signature, contractId: contract.id });
}

/** The contract's receive entry: payable, so it can be activated and never read. */
function findReceive(contract: { id: number; formattedAbi: readonly string[]; abi: Abi }, use: FunctionUse) {
  const index = contract.abi.findIndex((item) => item.type === 'receive');
  if (index < 0) throw new ApiError('FUNCTION_NOT_IN_ABI', { signature: RECEIVE_SIGNATURE, contractId: contract.id });
  if (use === 'read')
    throw new ApiError('FUNCTION_NOT_READABLE', { signature: RECEIVE_SIGNATURE, mutability: 'payable' });
  const item: ReceiveItem = { type: 'receive', stateMutability: 'payable' };
  return { formatted: itemEntries(contract.formattedAbi)[index] as string, signature: RECEIVE_SIGNATURE, item };
}

/** A value on a function that cannot take one: 400 naming the field. */
export function refuseValueOnNonPayable(
  fn: { signature: string; item: CallableItem },
  field: 'value' | 'maxValuePerTransaction' | 'maxValuePerDay',
): void {
  const { item } = fn;
  if (item.stateMutability === 'payable') return;
  throw new ApiError(
    'FUNCTION_NOT_PAYABLE',
    { signature: fn.signature, mutability: item.stateMutability, field },
    { details: [{ field: `body.${field}`, message: 'must be "0" or absent: the function is not payable' }] },
  );
}

/** The parsed function of an activation stored before parsed forms were, resolved against its contract's ABI. */
export function parseActivatedFunction(contractAbi: readonly string[], formattedFunction: string): CallableItem {
  const item = parseHumanAbi([formattedFunction], structContext(contractAbi)).items[0];
  if (item?.type === 'receive') return { type: 'receive', stateMutability: 'payable' };
  if (item?.type !== 'function') throw new Error(`Activated function ${formattedFunction} is not a function`);
  return item;
}
