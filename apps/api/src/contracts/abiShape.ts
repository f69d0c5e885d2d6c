// The shape of a human-readable ABI, read in one linear pass before any parser sees it: its struct definitions,
// each entry's parameters (inline tuples, arrays, struct references), and what they would cost once parsed. A struct
// may use another twice, so a chain of 26 structs stands for 2^26 components while its text is 1 KB: the cost is
// counted from the struct graph, each struct once, never by expanding it.
import { BaseError } from '#api/errors/BaseError.ts';

/** The most entries of one ABI (the request schema says the same). */
export const MAX_ABI_ENTRIES = 500;
/** The most characters of one entry (the request schema says the same). */
export const MAX_SIGNATURE_LENGTH = 4096;
/** The most `struct` definitions of one ABI. */
export const MAX_STRUCT_DEFINITIONS = 200;
/** The deepest type: each tuple, struct and array dimension is a level (`(uint256[] a)[] b` is 3 deep). */
export const MAX_NESTING_DEPTH = 16;
/** The most components one entry (or one struct) expands to, counting every parameter at every level. */
export const MAX_COMPONENTS_PER_ENTRY = 10_000;
/** The most components all entries of an ABI expand to together. */
export const MAX_COMPONENTS_PER_ABI = 10_000;

/** abitype's form of a struct definition (`struct Name { type name; … }`); any other entry is a signature. */
export const STRUCT_SIGNATURE = /^struct ([a-zA-Z$_][a-zA-Z0-9$_]*) \{(.*?)\}$/;

/** One parameter as written: an inline tuple with its components, or a named type (elementary or a struct). */
export interface ParamShape {
  /** The type's name and where it starts in the entry (absent for an inline tuple). */
  base?: { name: string; offset: number };
  /** An inline tuple's parentheses in the entry, and its components. */
  tuple?: { open: number; close: number };
  children?: ParamShape[];
  /** Array dimensions after the type: `uint256[2][]` has 2. */
  dims: number;
}

export interface EntryShape {
  index: number;
  text: string;
  /** The struct's name, for a struct definition. */
  struct?: string;
  /** A struct's fields (split on `;` as abitype does), or a signature's inputs and outputs. */
  params: ParamShape[];
}

/** What a limit refuses: the entry (index into the ABI, or undefined for the ABI as a whole) and why. */
export class AbiLimitError extends BaseError {
  override name = 'AbiLimitError';
  readonly code = 'VALIDATION_FAILED';
  constructor(
    readonly index: number | undefined,
    message: string,
  ) {
    super(message);
  }
}

const IDENTIFIER = /[a-zA-Z$_][a-zA-Z0-9$_]*(?: payable)?/y;
const DIMENSION = /\[\d*\]/y;
const fmt = (n: number) => (Number.isFinite(n) && n < 1e15 ? n.toLocaleString('en-US') : 'more than 10^15');

/**
 * The matching parenthesis of each one (both ways), in one pass; -1 for an unmatched one. Also the deepest
 * nesting, which bounds how far the parameter reader (and any parser) descends.
 */
function parentheses(text: string): { pairs: Int32Array; depth: number } {
  const pairs = new Int32Array(text.length).fill(-1);
  const open: number[] = [];
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 40) {
      open.push(i);
      if (open.length > depth) depth = open.length;
    } else if (c === 41 && open.length > 0) {
      const o = open.pop() as number;
      pairs[o] = i;
      pairs[i] = o;
    }
  }
  return { pairs, depth };
}

const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13) || (c > 127 && /\s/.test(String.fromCharCode(c)));

/** The parameters between `from` and `to`, split at top-level commas as abitype splits them. */
function paramList(text: string, pairs: Int32Array, from: number, to: number): ParamShape[] {
  const params: ParamShape[] = [];
  let start = from;
  for (let i = from; i <= to; i++) {
    const c = i < to ? text.charCodeAt(i) : 44;
    if (c === 40 && (pairs[i] as number) > i && (pairs[i] as number) < to) i = pairs[i] as number;
    else if (c === 44) {
      const param = paramAt(text, pairs, start, i);
      if (param) params.push(param);
      start = i + 1;
    }
  }
  return params;
}

/** One parameter in `[from, to)`; undefined when blank. Text it cannot read counts as an elementary type. */
function paramAt(text: string, pairs: Int32Array, from: number, to: number): ParamShape | undefined {
  let a = from;
  while (a < to && isSpace(text.charCodeAt(a))) a++;
  if (a >= to) return undefined;
  let after = a;
  const shape: ParamShape = { dims: 0 };
  if (text.charCodeAt(a) === 40) {
    const close = pairs[a] as number;
    if (close < a || close >= to) return shape;
    shape.tuple = { open: a, close };
    shape.children = paramList(text, pairs, a + 1, close);
    after = close + 1;
  } else {
    IDENTIFIER.lastIndex = a;
    const match = IDENTIFIER.exec(text);
    if (!match || match.index !== a) return shape;
    shape.base = { name: match[0], offset: a };
    after = a + match[0].length;
  }
  DIMENSION.lastIndex = after;
  while (after < to && DIMENSION.exec(text)) {
    shape.dims++;
    after = DIMENSION.lastIndex;
  }
  return shape;
}

/** The entry's parameters: a struct's fields, or the parameter lists of a signature (and its `returns`). */
function entryShape(text: string, index: number, pairs: Int32Array): EntryShape {
  const struct = STRUCT_SIGNATURE.exec(text);
  if (struct) {
    const params: ParamShape[] = [];
    let start = text.indexOf('{') + 1;
    const end = text.length - 1;
    for (let i = start; i <= end; i++) {
      if (i < end && text.charCodeAt(i) !== 59) continue;
      // A field with a top-level comma does not parse; reading its first parameter is enough here.
      const field = paramList(text, pairs, start, i)[0];
      if (field) params.push(field);
      start = i + 1;
    }
    return { index, text, struct: struct[1] as string, params };
  }
  const params: ParamShape[] = [];
  const open = text.indexOf('(');
  const close = open < 0 ? -1 : (pairs[open] as number);
  if (close < 0) return { index, text, params };
  params.push(...paramList(text, pairs, open + 1, close));
  const returns = text.indexOf('returns', close);
  const open2 = returns < 0 ? -1 : text.indexOf('(', returns);
  const close2 = open2 < 0 ? -1 : (pairs[open2] as number);
  if (close2 > 0) params.push(...paramList(text, pairs, open2 + 1, close2));
  return { index, text, params };
}

interface Cost {
  /** Components, counting every parameter at every level. */
  size: number;
  depth: number;
  /** The struct that makes it deep or large, for the message. */
  via?: string;
}

/** Costs of structs, each computed once from its fields (memoized), with cycles refused. */
function structCosts(structs: Map<string, EntryShape>) {
  const costs = new Map<string, Cost>();
  const visiting: string[] = [];
  const paramCost = (p: ParamShape): Cost => {
    if (p.children) {
      const inner = listCost(p.children);
      return { size: 1 + inner.size, depth: p.dims + 1 + inner.depth, ...(inner.via ? { via: inner.via } : {}) };
    }
    const ref = p.base && structs.has(p.base.name) ? p.base.name : undefined;
    if (!ref) return { size: 1, depth: p.dims };
    const inner = structCost(ref);
    return { size: 1 + inner.size, depth: p.dims + inner.depth, via: ref };
  };
  const listCost = (params: ParamShape[]): Cost => {
    let size = 0;
    let depth = 0;
    let via: string | undefined;
    for (const p of params) {
      const c = paramCost(p);
      size += c.size;
      if (c.depth > depth) depth = c.depth;
      if (c.via && (c.size > 1 || c.depth > 0)) via ??= c.via;
    }
    return { size, depth, ...(via ? { via } : {}) };
  };
  const structCost = (name: string): Cost => {
    const known = costs.get(name);
    if (known) return known;
    const shape = structs.get(name) as EntryShape;
    if (visiting.includes(name)) {
      const cycle = [...visiting.slice(visiting.indexOf(name)), name].join(' → ');
      throw new AbiLimitError(shape.index, `struct ${name} contains itself (${cycle}): a struct cannot be recursive`);
    }
    visiting.push(name);
    const inner = listCost(shape.params);
    visiting.pop();
    const cost = { size: inner.size, depth: 1 + inner.depth, ...(inner.via ? { via: inner.via } : {}) };
    costs.set(name, cost);
    return cost;
  };
  return { structCost, listCost };
}

function checkCost(index: number, what: string, cost: Cost): void {
  const via = cost.via ? ` (through struct ${cost.via})` : '';
  if (cost.depth > MAX_NESTING_DEPTH) {
    throw new AbiLimitError(
      index,
      `${what} nests ${fmt(cost.depth)} levels deep${via}; at most ${MAX_NESTING_DEPTH} levels of tuples, structs and array dimensions`,
    );
  }
  if (cost.size > MAX_COMPONENTS_PER_ENTRY) {
    throw new AbiLimitError(
      index,
      `${what} expands to ${fmt(cost.size)} components${via}; at most ${fmt(MAX_COMPONENTS_PER_ENTRY)} per entry`,
    );
  }
}

/** Refuses a too-long entry, or one whose parentheses nest past the depth limit, before reading it further. */
function checkText(text: string, index: number): Int32Array {
  if (text.length > MAX_SIGNATURE_LENGTH) {
    throw new AbiLimitError(
      index,
      `is ${fmt(text.length)} characters long; an entry may have at most ${fmt(MAX_SIGNATURE_LENGTH)}`,
    );
  }
  // The parameter list's own parenthesis is the first level; tuples inside it are the nesting.
  const { pairs, depth: parens } = parentheses(text);
  const depth = parens - 1;
  if (depth > MAX_NESTING_DEPTH) {
    throw new AbiLimitError(
      index,
      `nests tuples ${fmt(depth)} levels deep; at most ${MAX_NESTING_DEPTH} levels of tuples, structs and array dimensions`,
    );
  }
  return pairs;
}

export interface AbiShape {
  entries: EntryShape[];
  /** Struct definitions by name (a later definition of a name replaces an earlier one, as in abitype). */
  structs: Map<string, EntryShape>;
}

/**
 * Reads the ABI's shape and refuses it (AbiLimitError) past any limit: entries, entry length, struct definitions,
 * nesting depth, components per entry and per ABI, recursive structs. Linear in the text: each struct's cost is
 * computed once from its fields.
 */
export function checkAbiShape(entries: readonly string[], context?: AbiShape): AbiShape {
  if (entries.length > MAX_ABI_ENTRIES) {
    throw new AbiLimitError(undefined, `has ${fmt(entries.length)} entries; at most ${MAX_ABI_ENTRIES}`);
  }
  const shapes: EntryShape[] = [];
  const structs = new Map(context?.structs);
  let definitions = 0;
  entries.forEach((text, index) => {
    const shape = entryShape(text, index, checkText(text, index));
    shapes.push(shape);
    if (!shape.struct) return;
    if (++definitions > MAX_STRUCT_DEFINITIONS) {
      throw new AbiLimitError(index, `is struct definition number ${definitions}; at most ${MAX_STRUCT_DEFINITIONS}`);
    }
    structs.set(shape.struct, shape);
  });
  const { structCost, listCost } = structCosts(structs);
  for (const shape of structs.values())
    checkCost(shape.index, `struct ${shape.struct}`, structCost(shape.struct as string));
  let total = 0;
  for (const shape of shapes) {
    if (shape.struct) continue;
    const cost = listCost(shape.params);
    checkCost(shape.index, 'the entry', cost);
    total += cost.size;
    if (total > MAX_COMPONENTS_PER_ABI) {
      throw new AbiLimitError(
        shape.index,
        `brings the ABI's entries to ${fmt(total)} components in all; at most ${fmt(MAX_COMPONENTS_PER_ABI)} per ABI`,
      );
    }
  }
  return { entries: shapes, structs };
}
