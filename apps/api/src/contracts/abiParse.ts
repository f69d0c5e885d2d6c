// Parses a human-readable ABI with viem (abitype), after its shape has passed the limits (abiShape.ts), so that
// parsing costs time in proportion to the text. abitype re-reads a tuple's text once per enclosing tuple, builds a
// cache key from every struct definition for every parameter it reads (a 60 KB ABI of 200 small structs and 3,000
// parameters takes seconds), and copies each struct into every place it is used. Here abitype never sees a struct
// or a nested tuple: each struct reference and inline tuple in the text is replaced by a marker type
// (`bytes[<marker><n>]`, which abitype accepts wherever a tuple may stand), abitype parses each entry, each tuple's
// components and each struct's fields on their own, and the components are put back in place of the markers, each
// struct resolved once.

import { type AbiItem, type AbiParameter, parseAbiItem } from 'viem';
import { BaseError } from '#api/errors/BaseError.ts';
import { type AbiShape, checkAbiShape, type EntryShape, type ParamShape } from './abiShape.ts';
import { withoutAbitypeCache } from './abitypeCache.ts';

/** An entry that abitype refuses: its index and abitype's reason, in the entry's own words. */
export class AbiEntryError extends BaseError {
  override name = 'AbiEntryError';
  readonly code = 'VALIDATION_FAILED';
  constructor(
    readonly index: number,
    message: string,
  ) {
    super(message);
  }
}

/** A readable reason from a viem ABI parse error (its first line, plus the detail line when there is one). */
function parseProblem(error: unknown): string {
  const e = error as { shortMessage?: string; details?: string; message?: string };
  const lines = (e.message ?? '').split('\n').filter((l) => l.trim() && !/^(Version|Docs|Details):/.test(l.trim()));
  const detail = lines.find((l) => l !== e.shortMessage && !l.startsWith(e.shortMessage ?? '\u0000'));
  return [e.shortMessage ?? lines[0] ?? 'does not parse', detail].filter(Boolean).join(' ');
}

interface Markers {
  /** Digits no number of the ABI starts with: `bytes[<prefix><n>]` is struct n, or tuple n - structs. */
  prefix: string;
  names: string[];
  indexOf: Map<string, number>;
  pattern: RegExp;
  /** Inline tuples met while rewriting, each with the text of its components (itself rewritten). */
  tuples: { index: number; text: string }[];
}

function markersFor(shape: AbiShape): Markers {
  let longest = 0;
  for (const entry of [...shape.entries, ...shape.structs.values()])
    for (const run of entry.text.match(/\d+/g) ?? []) longest = Math.max(longest, run.length);
  const prefix = '9'.repeat(longest + 1);
  const names = [...shape.structs.keys()];
  return {
    prefix,
    names,
    indexOf: new Map(names.map((n, i) => [n, i])),
    pattern: new RegExp(`^bytes\\[${prefix}(\\d+)\\]`),
    tuples: [],
  };
}

/**
 * The text of `[from, to)` of an entry, whose parameters are `params`, with each struct reference and inline
 * tuple replaced by its marker type; the tuples' components are rewritten the same way, as tuples of their own.
 */
function rewrite(
  entry: EntryShape,
  params: ParamShape[],
  from: number,
  to: number,
  shape: AbiShape,
  markers: Markers,
): string {
  let out = '';
  let at = from;
  for (const p of params) {
    let marker: number;
    let start: number;
    let end: number;
    if (p.tuple && p.children) {
      marker = markers.names.length + markers.tuples.length;
      const tuple = { index: entry.index, text: '' };
      markers.tuples.push(tuple);
      tuple.text = rewrite(entry, p.children, p.tuple.open + 1, p.tuple.close, shape, markers);
      if (tuple.text.trim() === '') throw new AbiEntryError(entry.index, 'a tuple has no components');
      start = p.tuple.open;
      end = p.tuple.close + 1;
    } else if (p.base && shape.structs.has(p.base.name)) {
      marker = markers.indexOf.get(p.base.name) as number;
      start = p.base.offset;
      end = start + p.base.name.length;
    } else continue;
    out += `${entry.text.slice(at, start)}bytes[${markers.prefix}${marker}]`;
    at = end;
  }
  return out + entry.text.slice(at, to);
}

/** abitype's reason, with marker types written back as the struct names (or `tuple`) they stand for. */
function problem(error: unknown, markers: Markers): string {
  const markerText = new RegExp(`bytes\\[${markers.prefix}(\\d+)\\]`, 'g');
  return parseProblem(error)
    .replace(markerText, (_, n: string) => markers.names[Number(n)] ?? 'tuple')
    .replace(/error __mountain(Struct|Tuple)\((.*)\)/, '$2');
}

/**
 * The text without blanks around commas, which abitype trims from each parameter anyway: its parameter splitter
 * trims the rest of the list after every comma, copying it when it starts with a blank (quadratic in the list).
 */
const compact = (text: string) => text.replace(/\s*,\s*/g, ',');

/** abitype's parameters of a list (a struct's fields, a tuple's components) parsed as those of an error. */
function parseList(index: number, list: string, markers: Markers): readonly AbiParameter[] {
  try {
    return (parseAbiItem(`error __mountainTuple(${compact(list)})`) as unknown as { inputs: AbiParameter[] }).inputs;
  } catch (error) {
    throw new AbiEntryError(index, problem(error, markers));
  }
}

type Parsed = { items: AbiItem[]; shape: AbiShape };

/**
 * The parse as steps: it yields after each call to abitype, so that a caller may give the event loop back between
 * them (parseHumanAbiAsync). abitype's cache is emptied of what each run of steps added (see abitypeCache.ts).
 */
function* parseSteps(entries: readonly string[], context: AbiShape | undefined): Generator<void, Parsed> {
  const shape = checkAbiShape(entries, context);
  const markers = markersFor(shape);
  // Each struct's own fields, with markers where they use other structs or tuples.
  const fields = new Map<string, readonly AbiParameter[]>();
  for (const struct of shape.structs.values()) {
    const name = struct.struct as string;
    const open = struct.text.indexOf('{');
    const body = rewrite(struct, struct.params, open + 1, struct.text.length - 1, shape, markers)
      .split(';')
      .map((f) => f.trim())
      .filter(Boolean);
    if (body.length === 0) throw new AbiEntryError(struct.index, `struct ${name} has no fields`);
    const comma = body.find((f) => f.includes(','));
    if (comma) throw new AbiEntryError(struct.index, `struct field "${comma}" is not one parameter`);
    fields.set(name, parseList(struct.index, body.join(', '), markers));
    yield;
  }
  // Signatures, with markers for their structs and tuples (which the rewriting collects).
  const parsed: AbiItem[] = [];
  for (const entry of shape.entries) {
    if (entry.struct) continue;
    const text = rewrite(entry, entry.params, 0, entry.text.length, shape, markers);
    try {
      parsed.push(parseAbiItem(compact(text)) as AbiItem);
    } catch (error) {
      throw new AbiEntryError(entry.index, problem(error, markers));
    }
    yield;
  }
  const tuples: (readonly AbiParameter[])[] = [];
  for (const t of markers.tuples) {
    tuples.push(parseList(t.index, t.text, markers));
    yield;
  }

  const resolved = new Map<number, readonly AbiParameter[]>();
  const components = (marker: number): readonly AbiParameter[] => {
    let known = resolved.get(marker);
    if (!known) {
      const own =
        marker < markers.names.length
          ? fields.get(markers.names[marker] as string)
          : tuples[marker - markers.names.length];
      known = (own ?? []).map(graft);
      resolved.set(marker, known);
    }
    return known;
  };
  // A struct's components are one array shared by every use: parsed ABIs are read only.
  const graft = (param: AbiParameter): AbiParameter => {
    const marker = markers.pattern.exec(param.type);
    if (!marker) return param;
    return {
      ...param,
      type: `tuple${param.type.slice(marker[0].length)}`,
      components: components(Number(marker[1])),
    } as AbiParameter;
  };
  const items = parsed.map((item) => {
    const out = { ...item } as Record<string, unknown>;
    for (const key of ['inputs', 'outputs']) {
      const list = out[key];
      if (Array.isArray(list)) out[key] = list.map(graft);
    }
    return out as unknown as AbiItem;
  });
  return { items, shape };
}

/**
 * Parses every entry: one item per entry that is not a struct definition, in order, as viem's `parseAbi` gives
 * them. Throws AbiLimitError (abiShape.ts) past a limit, AbiEntryError for an entry abitype refuses. `context`:
 * the structs of the ABI the entries belong to (for one function of an imported contract).
 */
export function parseHumanAbi(entries: readonly string[], context?: AbiShape): Parsed {
  const steps = parseSteps(entries, context);
  return withoutAbitypeCache(() => {
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
    }
  });
}

/** The longest parseHumanAbiAsync keeps the event loop before it lets other work run. */
const SLICE_MS = 5;

/** parseHumanAbi that gives the event loop back every few milliseconds: a large ABI does not hold up other requests. */
export async function parseHumanAbiAsync(entries: readonly string[], context?: AbiShape): Promise<Parsed> {
  const steps = parseSteps(entries, context);
  for (;;) {
    const started = performance.now();
    const step = withoutAbitypeCache(() => {
      for (;;) {
        const next = steps.next();
        if (next.done || performance.now() - started > SLICE_MS) return next;
      }
    });
    if (step.done) return step.value;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
