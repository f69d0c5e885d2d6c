// Drafts of ABI shapes for the body properties that hold human-readable ABI (`formattedAbi`, `formattedAbiFunction`,
// `formattedAbiEvent`, found by name like the fixtures): the shapes that make a parser's work explode (struct chains
// that double per level, deep tuples, many parameters over many structs), huge arrays, long names, many entries, and
// their neighbours just inside the limits. They are schema-valid (`edge`): any documented answer below 500 will do,
// and `npm run fuzz` checks that none of them blocks the event loop.
import fc from 'fast-check';
import { nestedTuples, SEAPORT_ABI, structChain } from '#api-testing/abiShapes.ts';
import type { Schema } from './document.ts';
import { type WeightedDraft, weightedDrafts } from './draft.ts';
import { toJson } from './values.ts';

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** `function <name>(<params>)` filled with parameters up to about `chars` characters. */
function wideFunction(name: string, chars: number, param: (i: number) => string): string {
  const params: string[] = [];
  let length = name.length + 11;
  for (let i = 0; length < chars; i++) {
    params.push(param(i));
    length += (params.at(-1) as string).length + 2;
  }
  return `function ${name}(${params.join(', ')})`;
}

/** Whole ABIs (arrays of entries), each with what it is, for `formattedAbi`. */
function abis(): [string, string[]][] {
  const manyStructs = range(200).map((i) => `struct Struct${i} { uint256 fieldNumber${i}; address other${i}; }`);
  const deepNested16 = range(14).map((k) => {
    let param = nestedTuples(15, `f${k}`).slice(`function f${k}(`.length, -1);
    for (let j = 0; param.length < 3_900; j++) param += `, (uint256 a${j}, (address b${j}, bytes c${j}) d${j}) e${j}`;
    return `function f${k}(${param})`;
  });
  return [
    ...[8, 12, 16, 26, 30].map((depth): [string, string[]] => [`struct chain ${depth} deep`, structChain(depth)]),
    [
      'struct chain of 60 single uses',
      ['struct C0 { uint256 x; }', ...range(59).map((i) => `struct C${i + 1} { C${i} a; }`), 'function f(C59 x)'],
    ],
    ['recursive structs', ['struct A { B b; }', 'struct B { A a; }', 'function f(A a)']],
    ['struct of itself', ['struct A { A[] children; }', 'function f(A a)']],
    ...[10, 16, 17, 60].map((depth): [string, string[]] => [`tuples ${depth} deep`, [nestedTuples(depth)]]),
    ['parentheses 2,000 deep', [`function f(${'('.repeat(2_000)}uint256${')'.repeat(2_000)} x)`]],
    ['14 entries of 4 KB with tuples 16 deep', deepNested16],
    ['huge fixed arrays', ['function f(uint256[999999999] a, (uint256 x)[99999999999999999999] b)']],
    [
      'huge nested fixed arrays',
      ['error E(uint256[999999999][999999999][999999999] a)', 'event V(bytes32[4294967296] v)'],
    ],
    ['array dimensions 17 deep', [`function f(uint256${'[]'.repeat(17)} a)`]],
    ['a 4,000-character function name', [`function ${'a'.repeat(4_000)}()`]],
    ['a 4,000-character parameter name', [`function f(uint256 ${'p'.repeat(3_980)})`]],
    [
      'a 4,000-character struct name',
      [`struct ${'S'.repeat(3_950)} { uint256 x; }`, `function f(${'S'.repeat(3_950)} s)`],
    ],
    ['500 entries', range(500).map((i) => `function f${i}(uint256 a, address b) returns (bool)`)],
    ['200 struct definitions', manyStructs],
    ['201 struct definitions', [...manyStructs, 'struct Last { uint256 x; }']],
    [
      '100 structs and 2,400 parameters',
      [...manyStructs.slice(0, 100), ...range(40).map((k) => wideFunction(`g${k}`, 900, (j) => `uint256 p${k}_${j}`))],
    ],
    [
      'a struct of 40 fields used 250 times',
      [
        `struct W { ${range(40)
          .map((i) => `uint256 f${i};`)
          .join(' ')} }`,
        `function f(${range(250)
          .map((i) => `W w${i}`)
          .join(', ')})`,
      ],
    ],
    ['4,000 parameters in 14 entries', range(14).map((k) => wideFunction(`h${k}`, 4_000, (j) => `bool b${j}`))],
    ['Seaport', SEAPORT_ABI],
  ];
}

/** Single entries, for `formattedAbiFunction` and `formattedAbiEvent`. */
function entries(kind: 'function' | 'event'): [string, string][] {
  const wrap = (params: string) => (kind === 'function' ? `function f(${params})` : `event E(${params})`);
  return [
    ['tuples 16 deep', wrap(nestedTuples(16).slice('function f('.length, -1))],
    ['tuples 60 deep', wrap(nestedTuples(60).slice('function f('.length, -1))],
    ['parentheses 2,000 deep', wrap(`${'('.repeat(2_000)}uint256${')'.repeat(2_000)} x`)],
    ['huge fixed arrays', wrap('uint256[999999999] a, (uint256 x)[99999999999999999999] b')],
    ['a struct the contract does not define', wrap('S26 x')],
    [
      '1,000 parameters',
      wrap(
        range(1_000)
          .map((i) => `bool b${i}`)
          .join(','),
      ),
    ],
    [
      'a 4,000-character name',
      kind === 'function' ? `function ${'f'.repeat(4_000)}()` : `event ${'E'.repeat(4_000)}()`,
    ],
  ];
}

/** The drafts for the body's ABI properties; none when the body has none. */
export function abiDrafts(body: Schema, realisticBody: fc.Arbitrary<unknown>): WeightedDraft[] {
  const { weighted, add } = weightedDrafts();
  const properties = body.properties ?? {};
  const withValue = (name: string, what: string, value: unknown) =>
    realisticBody.map((base) => ({
      what: `body.${name}: ${what}`,
      mode: 'edge' as const,
      body: toJson({ ...(base as object), [name]: value }),
    }));
  if (properties.formattedAbi) {
    add(
      20,
      fc.constantFrom(...abis()).chain(([what, abi]) => withValue('formattedAbi', what, abi)),
    );
  }
  for (const [name, kind] of [
    ['formattedAbiFunction', 'function'],
    ['formattedAbiEvent', 'event'],
  ] as const) {
    if (properties[name])
      add(
        10,
        fc.constantFrom(...entries(kind)).chain(([what, text]) => withValue(name, what, text)),
      );
  }
  return weighted;
}
