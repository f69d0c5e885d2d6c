import { type Abi, type AbiFunction, parseAbi, toFunctionSignature } from 'viem';
import { ApiError, validationError } from '#api/errors/ApiError.ts';

/** A readable reason from a viem ABI parse error (its first line, plus the detail line when there is one). */
function parseProblem(error: unknown): string {
  const e = error as { shortMessage?: string; details?: string; message?: string };
  const lines = (e.message ?? '').split('\n').filter((l) => l.trim() && !/^(Version|Docs|Details):/.test(l.trim()));
  const detail = lines.find((l) => l !== e.shortMessage && !l.startsWith(e.shortMessage ?? '\u0000'));
  return [e.shortMessage ?? lines[0] ?? 'does not parse', detail].filter(Boolean).join(' ');
}

/**
 * Parses a contract's human-readable ABI. A 400 names the first entry that does not parse, by its index, so the
 * caller can fix exactly that string. `struct` entries may be used by the others, as viem allows.
 */
export function parseFormattedAbi(entries: readonly string[], field = 'body.formattedAbi'): Abi {
  try {
    return cached(`abi\u0000${entries.join('\u0000')}`, () => parseAbi(entries) as Abi);
  } catch {
    const structs = entries.filter((e) => e.trim().startsWith('struct '));
    entries.forEach((entry, index) => {
      try {
        parseAbi([...structs, entry]);
      } catch (error) {
        throw validationError([
          { field: `${field}[${index}]`, message: `does not parse as an ABI entry: ${parseProblem(error)}` },
        ]);
      }
    });
    // Each entry parses alone but not together (e.g. a struct defined twice).
    throw validationError([{ field, message: 'the ABI entries do not parse together (duplicate struct names?)' }]);
  }
}

/** The canonical signature of a function given as `function f(uint256 a)` or as `f(uint256)`. */
function signatureOf(formattedFunction: string, structs: readonly string[]): string | undefined {
  const text = formattedFunction.trim();
  const candidates = text.startsWith('function ') ? [text] : [`function ${text}`, text];
  for (const candidate of candidates) {
    try {
      const item = (parseAbi([...structs, candidate] as string[]) as Abi).find((i) => i.type === 'function');
      if (item?.type === 'function') return toFunctionSignature(item);
    } catch {
      // try the next spelling
    }
  }
  return undefined;
}

export interface ContractFunction {
  /** The entry as written in the contract's ABI, e.g. `function mint(address to, uint256 amount)`. */
  formatted: string;
  /** Canonical signature, e.g. `mint(address,uint256)`. */
  signature: string;
  item: AbiFunction;
}

/**
 * Finds a function of a contract's ABI by its human-readable form (argument names and returns may differ; the
 * signature decides). Only state-changing functions can be activated: view and pure ones are refused.
 */
export function findActivatableFunction(
  contract: { id: number; formattedAbi: readonly string[] },
  formattedFunction: string,
): ContractFunction {
  const structs = contract.formattedAbi.filter((e) => e.trim().startsWith('struct '));
  const signature = signatureOf(formattedFunction, structs);
  if (!signature) {
    throw validationError([
      {
        field: 'body.formattedAbiFunction',
        message: 'does not parse as a function, e.g. `function mint(address to, uint256 amount)`',
      },
    ]);
  }
  for (const formatted of contract.formattedAbi) {
    if (!formatted.trim().startsWith('function ')) continue;
    const item = (parseAbi([...structs, formatted] as string[]) as Abi).find((i) => i.type === 'function') as
      | AbiFunction
      | undefined;
    if (!item || toFunctionSignature(item) !== signature) continue;
    if (item.stateMutability === 'view' || item.stateMutability === 'pure') {
      throw new ApiError('FUNCTION_NOT_STATE_CHANGING', { signature, mutability: item.stateMutability });
    }
    return { formatted, signature, item };
  }
  throw new ApiError('FUNCTION_NOT_IN_ABI', { signature, contractId: contract.id });
}

/** The parsed function of an activation, resolved against its contract's ABI (for structs). */
export function parseActivatedFunction(contractAbi: readonly string[], formattedFunction: string): AbiFunction {
  const structs = contractAbi.filter((e) => e.trim().startsWith('struct '));
  return cached(`fn\u0000${structs.join('\u0000')}\u0000${formattedFunction}`, () =>
    (parseAbi([...structs, formattedFunction] as string[]) as Abi).find((i) => i.type === 'function'),
  ) as AbiFunction;
}

// Parsing a human-readable ABI costs far more than the rest of a request: every execution would parse its
// contract's ABI again. Parsed ABIs are immutable, so they are shared; the cache is bounded.
const cache = new Map<string, unknown>();
function cached<T>(key: string, parse: () => T): T {
  if (cache.has(key)) return cache.get(key) as T;
  const value = parse();
  if (cache.size >= 1_000) cache.clear();
  cache.set(key, value);
  return value;
}
