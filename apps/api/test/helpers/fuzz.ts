// Spec-driven fuzzing of the Public API: requests generated from the committed OpenAPI document (each body
// property's and query parameter's schema decides its mutations), sent over real HTTP, and judged by the document
// (what is valid) and by the rules every answer must keep: no 5xx, a 4xx in the error shape for invalid input,
// every answer as documented, nothing written by a refused request. Used by `npm run fuzz` and test/fuzz.test.ts.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { type AnvilHandle, startAnvil } from '@mountain/testkit/anvil.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { type RawRequest, sendRaw } from '@mountain/testkit/rawHttp.ts';
import { COUNTER_FORMATTED_ABI, deployCounter } from '@mountain/testkit/testContract.ts';
import AjvModule, { type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { API_PREFIX } from '#api/app.ts';
import { createHarness, type Harness } from '#api-testing/harness.ts';
import { OPENAPI_PATH } from '#api-testing/openapi.ts';
import { counterProject } from '#api-testing/transactionFlow.ts';

const Ajv = AjvModule.default;
const addFormats = addFormatsModule.default;

export const DEFAULT_SEED = 20_261_122;

// ─── The document ────────────────────────────────────────────────────────────────────────────────────────────────

export interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  default?: unknown;
  $ref?: string;
}

interface Parameter {
  name: string;
  required: boolean;
  schema: Schema;
}

export interface Operation {
  operationId: string;
  method: string;
  /** Full path, with the API prefix. */
  path: string;
  body?: Schema;
  query: Parameter[];
  bearerOnly: boolean;
}

/** Every operation of the committed OpenAPI document, with `$ref`s resolved. */
export function loadOperations(): Operation[] {
  const document = JSON.parse(readFileSync(OPENAPI_PATH, 'utf8'));
  const resolve = (schema: Schema): Schema => {
    if (schema.$ref) {
      const name = schema.$ref.replace('#/components/schemas/', '');
      return resolve(document.components.schemas[name]);
    }
    const out: Schema = { ...schema };
    if (schema.properties)
      out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, resolve(v)]));
    if (schema.items) out.items = resolve(schema.items);
    return out;
  };
  const operations: Operation[] = [];
  type DocumentOperation = {
    operationId: string;
    requestBody?: { content?: Record<string, { schema?: Schema }> };
    parameters?: (Parameter & { in: string })[];
    security?: object[];
  };
  for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, DocumentOperation>>)) {
    for (const [method, op] of Object.entries(methods)) {
      const body = op.requestBody?.content?.['application/json']?.schema;
      operations.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        path: `${API_PREFIX}${path}`,
        ...(body ? { body: resolve(body) } : {}),
        query: (op.parameters ?? [])
          .filter((p) => p.in === 'query')
          .map((p) => ({ name: p.name, required: p.required, schema: resolve(p.schema) })),
        bearerOnly: (op.security ?? document.security).every((s: object) => 'BearerAuth' in s && !('ApiKeyAuth' in s)),
      });
    }
  }
  return operations;
}

// ─── The oracle: what the document says is valid ─────────────────────────────────────────────────────────────────

/** Bodies strictly (no coercion), query strings coerced from text, as the README's validation rules say. */
function createOracle(operations: Operation[]) {
  const make = (coerceTypes: boolean) => {
    const ajv = new Ajv({ strict: false, allErrors: false, coerceTypes, useDefaults: true });
    addFormats(ajv);
    return ajv;
  };
  const strict = make(false);
  const coercing = make(true);
  const body = new Map<string, ValidateFunction>();
  const query = new Map<string, ValidateFunction>();
  for (const op of operations) {
    if (op.body) body.set(op.operationId, strict.compile(op.body));
    query.set(
      op.operationId,
      coercing.compile({
        type: 'object',
        properties: Object.fromEntries(op.query.map((p) => [p.name, p.schema])),
        required: op.query.filter((p) => p.required && p.schema.default === undefined).map((p) => p.name),
      }),
    );
  }
  return {
    /** Whether the body text is JSON the document accepts. */
    bodyValid(operationId: string, text: string): boolean {
      const validate = body.get(operationId);
      if (!validate) return true;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return false;
      }
      return validate(value);
    },
    queryValid(operationId: string, values: Record<string, string | string[]>): boolean {
      return (query.get(operationId) as ValidateFunction)(structuredClone(values));
    },
  };
}

// ─── Values ──────────────────────────────────────────────────────────────────────────────────────────────────────

/** A JSON number (or other text) written into the body as is: 1e400, 9007199254740993, -0, 1.0. */
class RawJson {
  constructor(readonly text: string) {}
}

function toJson(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, v) =>
    v instanceof RawJson ? `\u0000fuzz-raw-${raws.push(v.text) - 1}` : v,
  );
  return text.replace(/"\\u0000fuzz-raw-(\d+)"/g, (_, i: string) => raws[Number(i)] as string);
}

/** An object with `key` as an own property, even `__proto__`. */
function withKey(object: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const copy = { ...object };
  Object.defineProperty(copy, key, { value, enumerable: true, configurable: true, writable: true });
  return copy;
}

/** Strings that have broken servers before: NUL, lone surrogates, bidi overrides, BOM, injections, separators. */
const EDGE_STRINGS = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\ud83d',
  '\u202eevil\u202c',
  'مرحبا بالعالم',
  'שלום\u200f',
  '\ufeffbom',
  '😀👍🏽👨‍👩‍👧',
  'e\u0301\u0301\u0301',
  '\u200b\u200c\u200d',
  '\r\n',
  '\t',
  ' ',
  '%00',
  '%s%n%x',
  "'; DROP TABLE contracts; --",
  '<script>alert(1)</script>',
  '{{7*7}}$' + '{7*7}',
  '../../etc/passwd',
  'null',
  '\\',
  '"',
  '\u2028\u2029',
  '\uffff\ufffe',
  'İıǅ',
  // Text that looks like numbers, addresses or hex: what argument parsers meet.
  '-1',
  '1e3',
  '1.5',
  '0x',
  '0xZZ',
  '0x0',
  ` ${2 ** 53}`,
  '115792089237316195423570985008687907853269984665640564039457584007913129639936',
  '-57896044618658097711785492504343953926634992332820282019728792003956564819969',
  '0x5FbDB2315678afecb367f032d93F642f64180aa',
  '[]',
  '[[1,2],[3]]',
  '{"x":1}',
  'true ',
];
const NUMBERS = [
  0,
  -1,
  1,
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31),
  -(2 ** 31) - 1,
  2 ** 32,
  2 ** 53 - 1,
  2 ** 53,
  -(2 ** 53),
  1e308,
  -1e308,
  0.5,
  1.5,
  -0.5,
  1e-7,
  Number.MIN_VALUE,
];
const RAW_NUMBERS = [
  '9007199254740993',
  '9223372036854775807',
  '9223372036854775808',
  '-9223372036854775809',
  '18446744073709551616',
  '1e400',
  '-1e400',
  '-0',
  '1.0',
  '1e2',
  '1E+2',
  '0.0e0',
  '123456789012345678901234567890123456789012345678901234567890',
];
const NUMERIC_TEXT = [
  'NaN',
  'Infinity',
  '-Infinity',
  '1e3',
  '0x10',
  '0b1',
  '0o7',
  '٣',
  '５',
  ' 5',
  '5 ',
  '+5',
  '',
  '1_000',
  '1,000',
  '- 1',
  '1.',
  '.5',
  '00012',
];
const WRONG_TYPES: unknown[] = [null, true, false, 0, -1, 1.5, '', 'text', [], {}, [1], { a: 1 }, [null]];
const BAD_URIS = [
  'not a url',
  'example.com/hook',
  '//example.com/hook',
  'http://',
  'https://',
  'javascript:alert(1)',
  'ftp://127.0.0.1/x',
  'file:///etc/passwd',
  'http://exa mple.com/',
  'http://[::1',
  'http://127.0.0.1:99999/',
  'HTTP://127.0.0.1/',
  ' http://127.0.0.1/',
  'http://127.0.0.1/\u0000',
  `http://127.0.0.1/${'a'.repeat(2100)}`,
  'data:text/plain,hi',
];

/** A value the schema accepts; `realistic` values (fixtures of the environment) by property name come first. */
function validValue(schema: Schema, name: string, fixtures: Fixtures, realistic: boolean): fc.Arbitrary<unknown> {
  const known = fixtures[name];
  const fromSchema = schemaValid(schema, name, fixtures, realistic);
  if (known && realistic) return known;
  if (known) return fc.oneof({ arbitrary: known, weight: 1 }, { arbitrary: fromSchema, weight: 2 });
  return fromSchema;
}

function schemaValid(schema: Schema, name: string, fixtures: Fixtures, realistic: boolean): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case 'integer': {
      const min = schema.minimum ?? -(2 ** 31);
      const max = schema.maximum ?? Number.MAX_SAFE_INTEGER;
      return fc.oneof(
        fc.constantFrom(min, max),
        fc.integer({ min, max: Math.min(max, min + 1000) }),
        fc.maxSafeNat().filter((n) => n >= min && n <= max),
      );
    }
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const items = schema.items ?? {};
      return fc.array(validValue(items, `${name}[]`, fixtures, realistic), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 5, 5),
      });
    }
    case 'object':
      return objectOf(schema, fixtures, realistic);
    default:
      return stringValid(schema, realistic);
  }
}

function stringValid(schema: Schema, realistic: boolean): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? 64;
  if (schema.format === 'uuid') return fc.uuid();
  if (schema.format === 'uri') {
    // Loopback IP literals only: a valid URL must not send the server to resolve random names.
    // Private, link-local and oddly written addresses too: the server refuses those it does not call.
    return fc
      .tuple(
        fc.constantFrom('http', 'https'),
        fc.constantFrom(
          '127.0.0.1',
          '127.0.0.1:9',
          '[::1]:9',
          '0.0.0.0',
          '10.0.0.1',
          '169.254.169.254',
          '[fe80::1]',
          '[::ffff:10.0.0.1]',
          '[::]',
          '2130706433',
          '0x7f000001',
          '0177.0.0.1',
          'user:pass@127.0.0.1',
          'localhost:9',
        ),
        fc.webSegment(),
      )
      .map(([scheme, host, segment]) => `${scheme}://${host}/${segment}`);
  }
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
  const lengthOk = (s: string) => [...s].length >= min && [...s].length <= max;
  if (realistic) return fc.string({ minLength: Math.max(min, 1), maxLength: Math.min(max, 32) });
  return fc.oneof(
    fc.string({ minLength: min, maxLength: Math.min(max, 40), unit: 'binary' }),
    fc.string({ minLength: min, maxLength: Math.min(max, 40), unit: 'grapheme' }),
    fc.constantFrom(...EDGE_STRINGS).filter(lengthOk),
    fc.constantFrom('x'.repeat(max), '😀'.repeat(max), 'é'.repeat(max)),
  );
}

function objectOf(schema: Schema, fixtures: Fixtures, realistic: boolean): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties))
    model[name] = validValue(property, name, fixtures, realistic);
  return fc.record(model, { requiredKeys: schema.required ?? [] }) as fc.Arbitrary<Record<string, unknown>>;
}

/** Values the schema should refuse (the oracle has the last word): the mutations of one property. */
function mutations(schema: Schema, name: string, fixtures: Fixtures): fc.Arbitrary<unknown> {
  const wrongType = fc.constantFrom(...WRONG_TYPES);
  const options: fc.Arbitrary<unknown>[] = [wrongType];
  if (schema.enum) {
    const stringy = schema.enum.map((v) => String(v));
    options.push(
      fc.constantFrom(...stringy),
      fc.constantFrom(...stringy.flatMap((v) => [v.toUpperCase(), ` ${v}`, `${v} `, `${v}\u0000`, `${v},${v}`])),
      fc.constantFrom(5, 56, 1338, 1337.5, new RawJson('1337.0'), 'ｆａｉｌｅｄ', 'lost', ''),
    );
  } else if (schema.type === 'integer') {
    const bounds = [schema.minimum, schema.maximum].filter((b): b is number => b !== undefined);
    options.push(
      fc.constantFrom(...NUMBERS, ...bounds.flatMap((b) => [b - 1, b + 1, b + 0.5, b - 0.5])),
      fc.constantFrom(...RAW_NUMBERS).map((t) => new RawJson(t)),
      fc.constantFrom(...NUMERIC_TEXT, ...bounds.map(String)),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.integer(),
      fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map((b) => new RawJson(b.toString())),
    );
  } else if (schema.type === 'boolean') {
    options.push(fc.constantFrom('true', 'false', 0, 1, 'yes', 'TRUE', new RawJson('0')));
  } else if (schema.type === 'array') {
    const item = schema.items ?? {};
    const goodItem = validValue(item, `${name}[]`, fixtures, true);
    const max = schema.maxItems ?? 10;
    options.push(
      fc.constant([]),
      goodItem.map((v) => Array.from({ length: max + 1 }, () => v)),
      fc.constantFrom(5000, 12_000).map((n) => Array.from({ length: n }, () => 'x')),
      fc.tuple(goodItem, mutations(item, `${name}[]`, fixtures)).map(([good, bad]) => [good, bad]),
      mutations(item, `${name}[]`, fixtures).map((bad) => [bad]),
      goodItem.map((v) => ({ 0: v })),
      goodItem,
    );
  } else {
    options.push(...stringMutations(schema));
  }
  return fc.oneof(...options);
}

function stringMutations(schema: Schema): fc.Arbitrary<unknown>[] {
  const max = schema.maxLength ?? 4096;
  const options: fc.Arbitrary<unknown>[] = [
    fc.constantFrom(...EDGE_STRINGS),
    fc.string({ unit: 'binary', maxLength: 30 }),
    fc.constantFrom('', 'x'.repeat(max + 1), 'é'.repeat(max + 1), '😀'.repeat(max + 1), 'x'.repeat(40_000)),
    fc.constantFrom(...NUMBERS, ...RAW_NUMBERS.slice(0, 3).map((t) => new RawJson(t))),
  ];
  if (schema.format === 'uuid') {
    options.push(
      fc
        .uuid()
        .chain((u) =>
          fc.constantFrom(
            u.replace(/-/g, ''),
            `{${u}}`,
            `urn:uuid:${u}`,
            `${u} `,
            `${u}0`,
            u.slice(1),
            u.replace(/[0-9a-f]/, 'g'),
            `${u}\u0000`,
            `${u}\n`,
            u.toUpperCase(),
            u.replace(/-/g, '\u2010'),
          ),
        ),
      fc.constantFrom('00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '42'),
    );
  }
  if (schema.format === 'uri') options.push(fc.constantFrom(...BAD_URIS));
  if (schema.pattern) {
    const pattern = new RegExp(schema.pattern);
    options.push(
      fc.stringMatching(pattern).chain((v) =>
        fc.constantFrom(
          v.slice(0, -1),
          `${v}0`,
          v.toUpperCase(),
          ` ${v}`,
          `${v}\n`,
          v.replace(/[0-9a-fA-F]$/, 'g'),
          v.replace(/\d/g, (d) => String.fromCharCode(0xff10 + Number(d))),
          v.slice(2),
        ),
      ),
    );
  }
  return options;
}

// ─── Cases ───────────────────────────────────────────────────────────────────────────────────────────────────────

/**
 * `invalid`: the document refuses it, so the answer must be a 4xx in the error shape and nothing may be written.
 * `edge`: odd but allowed (or outside what the document can say): any documented answer below 500.
 * `valid`: a realistic request made of the environment's objects: it must pass validation.
 */
export type Kind = 'invalid' | 'edge' | 'valid';

export interface FuzzCase extends RawRequest {
  operationId: string;
  kind: Kind;
  /** What was done, short, for the report. */
  what: string;
  /** A 400 VALIDATION_FAILED must name one of these fields (or a field inside one). */
  fields?: string[];
}

/** Values of the environment by property name: realistic requests use them. */
export type Fixtures = Record<string, fc.Arbitrary<unknown>>;

export interface Credentials {
  apiKey: string;
  /** An access token of an admin of the API key's project. */
  token: string;
}

interface Draft {
  what: string;
  kind?: Kind;
  mode?: 'valid' | 'edge';
  fields?: string[];
  method?: string;
  path?: string;
  query?: Record<string, string | string[]>;
  querySuffix?: string;
  /** Body text (JSON unless the case says otherwise). */
  body?: string | Buffer;
  contentType?: string | null;
  headers?: [string, string][];
  /** `bearer`: the admin's access token even where an API key is the default. */
  auth?: 'default' | 'none' | 'custom' | 'bearer';
  version?: string;
  rawFraming?: boolean;
}

const CONTENT_TYPES: [string, Kind][] = [
  ['text/plain', 'invalid'],
  ['application/x-www-form-urlencoded', 'invalid'],
  ['multipart/form-data; boundary=x', 'invalid'],
  ['application/xml', 'invalid'],
  ['application/jsonx', 'invalid'],
  ['application/json-patch+json', 'invalid'],
  ['text/json', 'invalid'],
  ['*/*', 'invalid'],
  ['', 'invalid'],
  ['application/json; charset=utf-8', 'edge'],
  ['APPLICATION/JSON', 'edge'],
  ['application/json;charset=UTF-8', 'edge'],
  ['application/json; charset=utf-16', 'edge'],
  ['application/json; charset=latin1', 'edge'],
  ['application/json; boundary=x; charset=utf-8', 'edge'],
  ['application/json, text/plain', 'edge'],
  ['application/vnd.api+json', 'edge'],
];

function queryString(values: Record<string, string | string[]>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(values)) {
    for (const v of Array.isArray(value) ? value : [value]) parts.push(`${encode(key)}=${encode(v)}`);
  }
  return parts.join('&');
}

/** encodeURIComponent, but lone surrogates go out as their (invalid) UTF-8-style bytes instead of throwing. */
function encode(text: string): string {
  return text.replace(/[\s\S]/gu, (ch) => {
    try {
      return encodeURIComponent(ch);
    } catch {
      const code = ch.charCodeAt(0);
      return `%${(0xe0 | (code >> 12)).toString(16)}%${(0x80 | ((code >> 6) & 0x3f)).toString(16)}%${(0x80 | (code & 0x3f)).toString(16)}`.toUpperCase();
    }
  });
}

/** Every generator of drafts for one operation, weighted, all derived from the operation's schemas. */
function draftsFor(op: Operation, fixtures: Fixtures, bodyLimit: number): fc.Arbitrary<Draft> {
  const body = op.body;
  const realisticBody = body ? objectOf(body, fixtures, true) : fc.constant(undefined);
  const edgeBody = body ? objectOf(body, fixtures, false) : fc.constant(undefined);
  const realisticQuery = fc.record(
    Object.fromEntries(op.query.map((p) => [p.name, validValue(p.schema, p.name, fixtures, true).map(String)])),
    { requiredKeys: op.query.filter((p) => p.required).map((p) => p.name) },
  ) as fc.Arbitrary<Record<string, string>>;
  const asText = (value: unknown) => (value === undefined ? undefined : toJson(value));
  const weighted: fc.WeightedArbitrary<Draft>[] = [];
  const add = (weight: number, arbitrary: fc.Arbitrary<Draft>) => weighted.push({ weight, arbitrary });

  // Valid requests, realistic (the environment's objects) and odd-but-allowed (schema-valid anything).
  add(
    8,
    fc
      .tuple(realisticBody, realisticQuery)
      .map(([b, q]) => ({ what: 'valid request', mode: 'valid', body: asText(b), query: q })),
  );
  add(
    8,
    fc
      .tuple(edgeBody, realisticQuery)
      .map(([b, q]) => ({ what: 'schema-valid values', mode: 'edge', body: asText(b), query: q })),
  );

  if (body) {
    const properties = Object.entries(body.properties ?? {});
    // One property mutated: wrong type, boundaries, lengths, patterns, formats, unicode.
    const mutatedProperty = fc.tuple(fc.constantFrom(...properties), realisticBody).chain(([[name, schema], base]) =>
      mutations(schema, name, fixtures).map((value) => ({
        what: `body.${name}: ${brief(value)}`,
        fields: [`body.${name}`],
        body: toJson({ ...(base as object), [name]: value }),
      })),
    );
    add(40, mutatedProperty);
    // Several at once: every wrong field must be named (one is enough for the check).
    if (properties.length > 1)
      add(
        6,
        fc.tuple(fc.subarray(properties, { minLength: 2 }), realisticBody).chain(([chosen, base]) =>
          fc.tuple(...chosen.map(([name, schema]) => mutations(schema, name, fixtures))).map((values) => {
            const out: Record<string, unknown> = { ...(base as object) };
            chosen.forEach(([name], i) => {
              out[name] = values[i];
            });
            return {
              what: `${chosen.length} fields wrong`,
              fields: chosen.map(([name]) => `body.${name}`),
              body: toJson(out),
            };
          }),
        ),
      );
    // Missing fields.
    const required = body.required ?? [];
    if (required.length > 0) {
      add(
        6,
        fc.tuple(fc.subarray(required, { minLength: 1 }), realisticBody).map(([missing, base]) => ({
          what: `missing ${missing.join(', ')}`,
          fields: missing.map((m) => `body.${m}`),
          body: toJson(Object.fromEntries(Object.entries(base as object).filter(([k]) => !missing.includes(k)))),
        })),
      );
    }
    // Extra fields, from prototype-polluting names to look-alikes of real ones.
    const extraKey = fc.oneof(
      fc.constantFrom(
        '__proto__',
        'constructor',
        'prototype',
        'toString',
        '',
        ' ',
        '$where',
        'a.b',
        '[0]',
        ...properties.flatMap(([n]) => [
          n.toUpperCase(),
          `${n} `,
          `${n}\u0000`,
          n.replace(/^./, (c) => c.toUpperCase()),
        ]),
      ),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }),
    );
    add(
      6,
      fc.tuple(extraKey, fc.jsonValue({ maxDepth: 2 }), realisticBody).map(([key, value, base]) => ({
        what: `extra field ${JSON.stringify(key)}`,
        fields: [`body.${key}`],
        body: toJson(withKey(base as Record<string, unknown>, key, value)),
      })),
    );
    // Whole bodies: not objects, malformed JSON, nesting, sizes, encodings.
    const validText = realisticBody.map((b) => toJson(b));
    add(
      8,
      fc.oneof(
        fc.constantFrom('[]', 'null', '0', '"x"', 'true', '{}', '   ', '\n', '-', '{"a":', '{,}').map((t) => ({
          what: `body ${JSON.stringify(t)}`,
          body: t,
        })),
        validText.chain((text) =>
          fc.oneof(
            fc
              .nat({ max: Math.max(text.length - 2, 0) })
              .map((n) => ({ what: 'truncated JSON', body: text.slice(0, n) })),
            fc
              .constantFrom('}', ',', 'x', '\u0000', ' {}', '//c', ']')
              .map((g) => ({ what: `JSON then ${JSON.stringify(g)}`, body: text + g })),
            fc.constant({ what: 'single quotes', body: text.replace(/"/g, "'") }),
            fc.constant({ what: 'trailing comma', body: text.replace(/}$/, ',}') }),
            fc.constant({ what: 'comment', body: `/* c */${text}` }),
            fc.constant({ what: 'NaN literal', body: text.replace(/:(-?\d+)/, ':NaN') }),
            fc.constant({ what: 'hex literal', body: text.replace(/:(-?\d+)/, ':0x1F') }),
            fc.constant({ what: 'unquoted keys', body: text.replace(/"(\w+)":/g, '$1:') }),
            fc.constant({ what: 'raw control character in a string', body: text.replace(/":"/, '":"\u0001') }),
            fc.constant({ what: 'array of the body', body: `[${text}]` }),
            fc.constant({ what: 'UTF-8 BOM', kind: 'edge' as Kind, body: `\ufeff${text}` }),
            fc.constant({
              what: 'invalid UTF-8 in a string',
              kind: 'edge' as Kind,
              body: Buffer.concat([
                Buffer.from(text.replace(/":"/, '":"\u0007').split('\u0007')[0] ?? text),
                Buffer.from([0xed, 0xa0, 0x80, 0xff, 0xc0, 0xaf]),
                Buffer.from(text.replace(/":"/, '":"\u0007').split('\u0007')[1] ?? ''),
              ]),
            }),
            fc.constant({ what: 'duplicate key, last wins', body: text.replace(/^{"(\w+)":/, '{"$1":"first","$1":') }),
          ),
        ),
        fc
          .constantFrom(100, 5_000, 20_000)
          .map((n) => ({ what: `${n} nested arrays`, body: `${'['.repeat(n)}${']'.repeat(n)}` })),
        fc
          .constantFrom(100, 3_000)
          .map((n) => ({ what: `${n} nested objects`, body: `${'{"a":'.repeat(n)}1${'}'.repeat(n)}` })),
        fc.constant({
          what: '3000 extra keys',
          body: toJson(Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`k${i}`, i]))),
        }),
      ),
    );
    // Content types.
    add(
      6,
      fc.tuple(fc.constantFrom(...CONTENT_TYPES), validText).map(([[type, kind], text]) => ({
        what: `content-type ${JSON.stringify(type)}`,
        kind,
        contentType: type,
        body: text,
      })),
    );
    add(
      1,
      validText.map((text) => ({ what: 'no content-type', kind: 'invalid' as Kind, contentType: null, body: text })),
    );
    // Sizes around BODY_LIMIT.
    const stringProperty = properties.find(([, s]) => s.type === 'string')?.[0] ?? 'padding';
    add(
      4,
      fc.tuple(fc.integer({ min: 1, max: 200_000 }), realisticBody).map(([over, base]) => {
        const skeleton = toJson({ ...(base as object), [stringProperty]: '' });
        return {
          what: `body ${over} bytes over BODY_LIMIT`,
          kind: 'invalid' as Kind,
          body: toJson({ ...(base as object), [stringProperty]: 'x'.repeat(bodyLimit - skeleton.length + over) }),
        };
      }),
    );
    add(
      1,
      realisticBody.map((base) => {
        const skeleton = toJson({ ...(base as object), [stringProperty]: '' });
        return {
          what: 'body exactly BODY_LIMIT bytes',
          fields: [`body.${stringProperty}`],
          body: toJson({ ...(base as object), [stringProperty]: 'x'.repeat(bodyLimit - skeleton.length) }),
        };
      }),
    );
  } else {
    // A body sent to an operation that takes none.
    add(
      5,
      fc.constantFrom('{"a":1}', '{"a":', '[]', 'x'.repeat(bodyLimit + 10)).chain((text) =>
        fc.constantFrom('application/json', 'text/plain').map((type) => ({
          what: `GET with a ${type} body of ${text.length} bytes`,
          kind: 'edge' as Kind,
          contentType: type,
          body: text,
        })),
      ),
    );
  }

  // Query strings: each parameter's mutations as text, repeats, brackets, unknown names, encoded garbage.
  if (op.query.length > 0) {
    add(
      20,
      fc.tuple(fc.constantFrom(...op.query), realisticQuery).chain(([param, base]) =>
        fc
          .oneof(
            mutations(param.schema, param.name, fixtures).map((v) =>
              v instanceof RawJson ? v.text : typeof v === 'string' ? v : JSON.stringify(v),
            ),
            fc.constantFrom(...NUMERIC_TEXT),
          )
          .map((value) => ({
            what: `querystring.${param.name}=${JSON.stringify(value).slice(0, 40)}`,
            fields: [`querystring.${param.name}`],
            query: { ...base, [param.name]: value },
          })),
      ),
    );
    add(
      6,
      fc.tuple(fc.constantFrom(...op.query), realisticQuery, realisticQuery).map(([param, a, b]) => ({
        what: `querystring.${param.name} repeated`,
        fields: [`querystring.${param.name}`],
        query: { ...a, [param.name]: [a[param.name] ?? '1', b[param.name] ?? '2'] },
      })),
    );
    add(
      4,
      fc
        .tuple(
          fc.constantFrom(...op.query),
          fc.constantFrom('%ZZ', '%', '%00', '%ED%A0%80', '%C0%AF', '%F0%9F%98%80', '%2525', '+++', '%0A'),
        )
        .map(([param, garbage]) => ({
          what: `querystring.${param.name}=${garbage}`,
          kind: 'invalid' as Kind,
          fields: [`querystring.${param.name}`],
          querySuffix: `${param.name}=${garbage}`,
        })),
    );
    add(
      2,
      fc.tuple(fc.constantFrom(...op.query), realisticQuery).map(([param, base]) => ({
        what: `querystring ${param.name}[]`,
        kind: 'edge' as Kind,
        query: base,
        querySuffix: `${param.name}[]=1&${param.name}[x]=2`,
      })),
    );
  }
  add(
    op.query.length > 0 ? 4 : 12,
    fc
      .tuple(
        realisticQuery,
        fc.oneof(
          fc
            .tuple(
              fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }),
              fc.string({ unit: 'binary', maxLength: 30 }),
            )
            .map(([k, v]) => `${encode(k)}=${encode(v)}`),
          fc.constantFrom(
            '%ZZ',
            '%',
            '&&&',
            '=',
            '==x',
            'a=b=c',
            ';',
            '?',
            'x[y][z]=1',
            '__proto__[admin]=1',
            'a=%00',
            `q=${'x'.repeat(6000)}`,
          ),
        ),
      )
      .map(([base, suffix]) => ({
        what: `extra query ${suffix.slice(0, 30)}`,
        kind: 'edge' as Kind,
        query: base,
        querySuffix: suffix,
      })),
  );

  // Paths and methods near the operation's.
  const lastSegment = op.path.split('/').pop() as string;
  const otherMethod = op.method === 'GET' ? 'POST' : 'GET';
  add(
    op.body ? 3 : 10,
    fc
      .constantFrom<[string, string]>(
        [op.method, `${op.path}/`],
        [op.method, op.path.toUpperCase()],
        [op.method, `/${op.path}`],
        [op.method, op.path.replace('/v3/', '/v2/')],
        [op.method, `${op.path}/..`],
        [op.method, `${op.path}/../${lastSegment}`],
        [op.method, op.path.replace(`/${lastSegment}`, `/%2e%2e/${lastSegment}`)],
        [op.method, `${op.path}%00`],
        [op.method, `${op.path};jsessionid=1`],
        [op.method, `${op.path}%2F`],
        [op.method, op.path.replace(/-/g, '%2D')],
        [op.method, `${op.path}/%ZZ`],
        [op.method, `${op.path}/${'x'.repeat(5000)}`],
        [op.method, `${op.path}/\u202e`],
        [op.method, `${op.path}#fragment`],
        [otherMethod, op.path],
        ['PUT', op.path],
        ['DELETE', op.path],
        ['PATCH', op.path],
        ['OPTIONS', op.path],
        ['TRACE', op.path],
        ['HEAD', op.path],
        ['BREW', op.path],
      )
      .map(([method, path]) => ({ what: `${method} ${path.slice(0, 60)}`, kind: 'edge' as Kind, method, path })),
  );

  // Header oddities.
  add(
    op.body ? 4 : 10,
    fc.oneof(
      fc.constantFrom<Draft>(
        { what: 'X-Request-Id unicode', kind: 'edge', headers: [['x-request-id', 'ид-\u202e-😀']] },
        { what: 'X-Project-Id junk', kind: 'edge', headers: [['x-project-id', '-1e400']] },
        { what: 'Accept text/html', kind: 'edge', headers: [['accept', 'text/html']] },
        { what: '8 KB header', kind: 'edge', headers: [['x-padding', 'p'.repeat(8_000)]] },
        { what: '20 KB header', kind: 'edge', headers: [['x-padding', 'p'.repeat(20_000)]] },
        {
          what: '200 headers',
          kind: 'edge',
          headers: Array.from({ length: 200 }, (_, i): [string, string] => [`x-h${i}`, String(i)]),
        },
        { what: 'header with NUL', kind: 'edge', headers: [['x-odd', 'a\u0000b']] },
        { what: 'header name with a space', kind: 'edge', headers: [['x odd', '1']] },
        { what: 'non-ASCII header value', kind: 'edge', headers: [['x-odd', 'é😀']] },
        { what: 'Content-Encoding gzip, not gzipped', kind: 'edge', headers: [['content-encoding', 'gzip']] },
        { what: 'Expect 417-test', kind: 'edge', headers: [['expect', 'something-else']] },
        { what: 'no credentials', kind: 'invalid', auth: 'none' },
        { what: 'garbage API key', kind: 'invalid', auth: 'custom', headers: [['x-api-key', 'mtn_test_\u0000\u202e']] },
        { what: 'garbage bearer token', kind: 'invalid', auth: 'custom', headers: [['authorization', 'Bearer a.b.c']] },
        { what: 'HTTP/1.0', kind: 'edge', version: 'HTTP/1.0' },
        { what: 'HTTP/2.0 on a 1.1 socket', kind: 'edge', version: 'HTTP/2.0' },
        { what: 'no Host header', kind: 'edge', rawFraming: true, headers: [['connection', 'close']] },
        {
          what: 'Content-Length and Transfer-Encoding',
          kind: 'edge',
          rawFraming: true,
          headers: [
            ['host', '127.0.0.1'],
            ['connection', 'close'],
            ['content-length', '2'],
            ['transfer-encoding', 'chunked'],
          ],
          body: '0\r\n\r\n',
        },
        {
          what: 'two Content-Length headers',
          kind: 'edge',
          rawFraming: true,
          headers: [
            ['host', '127.0.0.1'],
            ['connection', 'close'],
            ['content-length', '2'],
            ['content-length', '3'],
          ],
          body: '{}',
        },
      ),
      fc.constant<Draft>({ what: 'API key twice', kind: 'invalid', auth: 'custom', headers: [] }),
      // The project header of access tokens, parsed by the server itself.
      fc
        .constantFrom('0', '-1', '1e3', '2147483648', '9999999999', '99999999999', '١', ' 1', '1,2', '1, 1', 'NaN', '')
        .map(
          (value): Draft => ({
            what: `access token, X-Project-Id ${JSON.stringify(value)}`,
            kind: 'edge',
            auth: 'bearer',
            headers: [['x-project-id', value]],
          }),
        ),
      fc.constant<Draft>({ what: 'API key with spaces around', kind: 'edge', auth: 'custom', headers: [] }),
    ),
  );
  if (body) {
    add(
      2,
      realisticBody.map((b) => {
        const text = toJson(b);
        const half = Math.floor(text.length / 2);
        return {
          what: 'chunked body',
          mode: 'valid' as const,
          rawFraming: true,
          headers: [
            ['host', '127.0.0.1'],
            ['connection', 'close'],
            ['content-type', 'application/json'],
            ['transfer-encoding', 'chunked'],
          ] as [string, string][],
          body: `${half.toString(16)}\r\n${text.slice(0, half)}\r\n${(Buffer.byteLength(text) - Buffer.byteLength(text.slice(0, half))).toString(16)}\r\n${text.slice(half)}\r\n0\r\n\r\n`,
        } as Draft;
      }),
    );
  }
  return fc.oneof(...weighted);
}

function brief(value: unknown): string {
  if (value instanceof RawJson) return value.text.slice(0, 40);
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 30)}… (${text.length} chars)` : text;
}

/** Turns a draft into the request sent: credentials, framing, and the oracle's verdict on its validity. */
function finish(
  op: Operation,
  draft: Draft,
  oracle: ReturnType<typeof createOracle>,
  credentials: Credentials,
): FuzzCase {
  const headers: [string, string][] = [];
  const authHeader: [string, string] = op.bearerOnly
    ? ['authorization', `Bearer ${credentials.token}`]
    : ['x-api-key', credentials.apiKey];
  if (draft.what === 'API key twice') headers.push(authHeader, authHeader);
  else if (draft.what === 'API key with spaces around') headers.push([authHeader[0], `  ${authHeader[1]}  `]);
  else if (draft.auth === 'bearer') headers.push(['authorization', `Bearer ${credentials.token}`]);
  else if (draft.auth !== 'none' && draft.auth !== 'custom') headers.push(authHeader);
  const isBodyOp = op.body !== undefined;
  const bodyText = draft.body ?? (isBodyOp && !draft.rawFraming ? '{}' : undefined);
  if (bodyText !== undefined && draft.contentType !== null && !draft.rawFraming)
    headers.push(['content-type', draft.contentType ?? 'application/json']);
  headers.push(...(draft.headers ?? []));

  let query = draft.query && Object.keys(draft.query).length > 0 ? queryString(draft.query) : '';
  if (draft.querySuffix) query = query ? `${query}&${draft.querySuffix}` : draft.querySuffix;
  const path = draft.path ?? op.path;
  const target = query ? `${path}?${query}` : path;

  let kind: Kind;
  // Node keeps the first of repeated Authorization headers, but joins repeated X-API-Key ones.
  if (draft.what === 'API key twice' && op.bearerOnly) kind = 'edge';
  else if (draft.kind) kind = draft.kind;
  else {
    const text = typeof bodyText === 'string' ? bodyText : bodyText?.toString('utf8');
    const bodyOk = !isBodyOp || draft.rawFraming || (text !== undefined && oracle.bodyValid(op.operationId, text));
    const queryOk = oracle.queryValid(op.operationId, draft.query ?? {});
    kind = bodyOk && queryOk ? (draft.mode ?? 'edge') : 'invalid';
  }
  return {
    operationId: op.operationId,
    kind,
    what: draft.what,
    ...(kind === 'invalid' && draft.fields ? { fields: draft.fields } : {}),
    method: draft.method ?? op.method,
    target,
    headers,
    ...(bodyText !== undefined ? { body: Buffer.isBuffer(bodyText) ? bodyText : Buffer.from(bodyText, 'utf8') } : {}),
    ...(draft.version ? { version: draft.version } : {}),
    ...(draft.rawFraming ? { rawFraming: true } : {}),
  };
}

/** `runs` cases for one operation, the same for the same seed. */
export function generateCases(
  op: Operation,
  options: { seed: number; runs: number; fixtures: Fixtures; credentials: Credentials; bodyLimit: number },
  oracle = createOracle([op]),
): FuzzCase[] {
  const drafts = fc.sample(draftsFor(op, options.fixtures, options.bodyLimit), {
    seed: options.seed,
    numRuns: options.runs,
  });
  return drafts.map((d) => finish(op, d, oracle, options.credentials));
}

// ─── The environment ─────────────────────────────────────────────────────────────────────────────────────────────

/** Tables a refused request must leave exactly as they were. */
const WATCHED_TABLES = [
  'projects',
  'api_keys',
  'users',
  'memberships',
  'contracts',
  'contract_activated_functions',
  'transactions',
  'event_notifier_subscriptions',
  'event_notifier_records',
  'graphile_worker._private_jobs',
];

/** Forwards JSON-RPC to anvil and counts the requests, so a test can tell whether a request reached the chain. */
async function startCountingProxy(target: string) {
  let calls = 0;
  const server = http.createServer((req, res) => {
    calls++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      try {
        const upstream = await fetch(target, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: Buffer.concat(chunks),
        });
        res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(await upstream.text());
      } catch {
        res.writeHead(502).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    calls: () => calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface FuzzEnvironment {
  h: Harness;
  anvil: AnvilHandle;
  port: number;
  /** JSON-RPC requests the API has sent to the chain so far. */
  chainCalls(): number;
  operations: Operation[];
  fixtures: Fixtures;
  credentials: Credentials;
  /** Row count and content hash of every watched table. */
  snapshot(): Promise<Record<string, string>>;
  close(): Promise<void>;
}

/**
 * The app on a fresh database, listening on a loopback port, with anvil (chain 1337), the test contract deployed,
 * imported and `increment` activated, a subscription and a transaction, so that realistic requests get real
 * answers. No worker runs: jobs stay queued, so the watched tables change only by requests.
 */
export async function startFuzzEnvironment(): Promise<FuzzEnvironment> {
  const anvil = await startAnvil({ port: await freePort() });
  const chain = await startCountingProxy(anvil.url);
  let h: Harness | undefined;
  try {
    h = await createHarness({ rpcUrls: { 1337: chain.url } });
    const harness = h;
    const counter = await deployCounter(anvil.url);
    const p = await counterProject(harness, counter, ['increment']);
    const admin = await harness.member(p.projectId, 'admin');
    const transaction = await harness.call('execute-transaction', {
      headers: p.headers,
      body: { contractActivatedFunctionId: p.ids.increment, functionArgs: ['1'], idempotencyKey: 'fuzz-fixture' },
    });
    const event = COUNTER_FORMATTED_ABI.find((e) => e.startsWith('event ')) as string;
    const subscription = await harness.call('create-subscription', {
      headers: p.headers,
      body: {
        subscriptionName: 'Fuzz',
        networkId: 1337,
        address: counter,
        formattedAbiEvent: event,
        initialBlockNumber: 0,
        scanInterval: 60,
      },
    });
    if (transaction.status !== 201 || subscription.status !== 201)
      throw new Error(`fixtures not created: ${JSON.stringify([transaction.body, subscription.body])}`);
    await harness.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (harness.app.server.address() as { port: number }).port;
    const subscriptionId = subscription.body.eventNotifierSubscription.id as string;
    // State-changing functions other than the one the realistic executions use, which must stay active.
    const otherFunctions = COUNTER_FORMATTED_ABI.filter(
      (e) => e.startsWith('function ') && !e.includes('increment(') && !/\b(view|pure)\b/.test(e),
    );
    // By property name, as the document names them: the generators stay free of per-operation code.
    const fixtures: Fixtures = {
      networkId: fc.constant(1337),
      address: fc.oneof(fc.constant(counter), fc.stringMatching(/^0x[0-9a-f]{40}$/)),
      formattedAbi: fc.constant(COUNTER_FORMATTED_ABI),
      formattedAbiEvent: fc.constant(event),
      formattedAbiFunction: fc.constantFrom(...otherFunctions),
      contractId: fc.constant(p.contractId),
      contractActivatedFunctionId: fc.constant(p.ids.increment as number),
      functionArgs: fc.integer({ min: 0, max: 1000 }).map((n) => [String(n)]),
      idempotencyKey: fc.uuid(),
      id: fc.constant(subscriptionId),
      subscriptionId: fc.constant(subscriptionId),
      transactionId: fc.constant(transaction.body.transaction.id as string),
      webhookURL: fc.constant('http://127.0.0.1:9/hook'),
      webhookEnabled: fc.boolean(),
      webhookMaxRetries: fc.integer({ min: 0, max: 20 }),
      subscriptionName: fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !s.includes('\u0000')),
      initialBlockNumber: fc.integer({ min: 0, max: 100 }),
      scanInterval: fc.integer({ min: 5, max: 86_400 }),
      page: fc.integer({ min: 1, max: 3 }),
      perPage: fc.integer({ min: 1, max: 100 }),
    };
    return {
      h: harness,
      anvil,
      port,
      chainCalls: chain.calls,
      operations: loadOperations(),
      fixtures,
      credentials: { apiKey: p.headers['x-api-key'] as string, token: admin.token },
      async snapshot() {
        const { rows } = await harness.db.query<{ t: string; n: string; hash: string }>(
          WATCHED_TABLES.map(
            (t) =>
              `SELECT '${t}' AS t, count(*)::text AS n, md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) AS hash FROM ${t} x`,
          ).join(' UNION ALL '),
        );
        return Object.fromEntries(rows.map((r) => [r.t, `${r.n} rows, ${r.hash}`]));
      },
      async close() {
        await harness.close();
        await chain.close();
        await anvil.stop();
      },
    };
  } catch (error) {
    await h?.close();
    await chain.close();
    await anvil.stop();
    throw error;
  }
}

// ─── Running and judging ─────────────────────────────────────────────────────────────────────────────────────────

export interface Failure {
  operationId: string;
  what: string;
  kind: Kind;
  problem: string;
  request: string;
  status?: number;
  answer?: string;
}

export interface OperationResult {
  operationId: string;
  cases: number;
  byKind: Record<Kind, number>;
  /** Answers by status class. */
  answers: Record<'2xx' | '4xx' | 'other', number>;
  /** Realistic valid requests that got a 2xx. */
  validSucceeded: number;
  /** JSON-RPC requests sent to the chain while serving this operation's cases (never for invalid ones). */
  chainCalls: number;
  failures: Failure[];
}

/** Validation-level refusals: a request the document accepts must never get one of these. */
const VALIDATION_CODES = new Set(['VALIDATION_FAILED', 'INVALID_JSON', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE']);

function summary(c: FuzzCase): string {
  const body = c.body ? ` body ${c.body.length} B: ${c.body.toString('utf8').slice(0, 120)}` : '';
  return `${c.method} ${c.target.slice(0, 160)}${body}`;
}

/** Sends each case in turn and checks its answer; the database is compared before and after every refusal. */
export async function runOperation(
  env: FuzzEnvironment,
  op: Operation,
  options: { seed: number; runs: number },
): Promise<OperationResult> {
  const cases = generateCases(op, {
    seed: options.seed,
    runs: options.runs,
    fixtures: env.fixtures,
    credentials: env.credentials,
    bodyLimit: env.h.deps.bodyLimit,
  });
  const result: OperationResult = {
    operationId: op.operationId,
    cases: cases.length,
    byKind: { invalid: 0, edge: 0, valid: 0 },
    answers: { '2xx': 0, '4xx': 0, other: 0 },
    validSucceeded: 0,
    chainCalls: 0,
    failures: [],
  };
  const chainCallsAtStart = env.chainCalls();
  let before = await env.snapshot();
  for (const c of cases) {
    result.byKind[c.kind]++;
    const fail = (problem: string, status?: number, answer?: string) =>
      result.failures.push({
        operationId: op.operationId,
        what: c.what,
        kind: c.kind,
        problem,
        request: summary(c),
        ...(status !== undefined ? { status } : {}),
        ...(answer !== undefined ? { answer: answer.slice(0, 300) } : {}),
      });
    const chainCallsBefore = env.chainCalls();
    let response: Awaited<ReturnType<typeof sendRaw>>;
    try {
      response = await sendRaw(env.port, c);
    } catch (error) {
      fail(`no answer: ${(error as Error).message}`);
      before = await env.snapshot();
      continue;
    }
    const { status } = response;
    const text = response.body.toString('utf8');
    result.answers[status >= 200 && status < 300 ? '2xx' : status >= 400 && status < 500 ? '4xx' : 'other']++;
    let body: { code?: string; details?: { field: string }[] } | undefined;
    const hasBody = c.method !== 'HEAD' && status !== 204 && status !== 304;
    if (hasBody) {
      try {
        body = JSON.parse(text);
      } catch {
        fail('answer is not JSON', status, text);
        before = await env.snapshot();
        continue;
      }
    }
    if (status >= 500) fail('5xx', status, text);
    else if (c.kind === 'invalid' && (status < 400 || status >= 500)) fail('invalid request accepted', status, text);
    else if (c.kind === 'valid' && status >= 400 && VALIDATION_CODES.has(body?.code ?? ''))
      fail('valid request refused by validation', status, text);
    if (hasBody) {
      const routeNotFound = status === 404 && body?.code === 'ROUTE_NOT_FOUND';
      const ownRoute =
        !routeNotFound && (c.method === op.method || c.method === 'HEAD') && status !== 413 && status !== 415;
      try {
        if (status >= 400) env.h.validator.assertError(body);
        if (ownRoute && c.method !== 'HEAD') env.h.validator.assertResponse(op.operationId, status, body);
      } catch (error) {
        fail((error as Error).message.split('\n')[0] as string, status, text);
      }
      if (c.fields && status === 400 && body?.code === 'VALIDATION_FAILED') {
        const named = (body.details ?? []).map((d) => d.field);
        const expected = c.fields;
        // `request`: the HTTP parser refused the whole request (a URL over 16 KB) before any field was read.
        const ok = named.some(
          (n) =>
            n === 'request' ||
            expected.some((f) => n === f || n.startsWith(`${f}.`) || n.startsWith(`${f}[`) || f.startsWith(`${n}.`)),
        );
        if (!ok) fail(`400 names ${JSON.stringify(named)}, not ${expected.join(' or ')}`, status, text);
      }
    }
    if (c.kind === 'invalid' && env.chainCalls() !== chainCallsBefore)
      fail('invalid request reached the chain', status, text);
    if (c.kind === 'valid' && status >= 200 && status < 300) result.validSucceeded++;
    const after = await env.snapshot();
    if (status >= 400 || c.kind === 'invalid') {
      const changed = Object.keys(after).filter((t) => after[t] !== before[t]);
      if (changed.length > 0) fail(`refused request wrote to ${changed.join(', ')}`, status, text);
    }
    before = after;
  }
  result.chainCalls = env.chainCalls() - chainCallsAtStart;
  return result;
}

/** `/healthz` and `/readyz` answer 200 over HTTP. */
export async function checkHealth(env: FuzzEnvironment): Promise<string[]> {
  const problems: string[] = [];
  for (const path of ['/healthz', '/readyz']) {
    const res = await sendRaw(env.port, { method: 'GET', target: path, headers: [] });
    if (res.status !== 200) problems.push(`${path} answered ${res.status}: ${res.body.toString('utf8')}`);
  }
  return problems;
}

/** The per-operation table and, below it, the failures (at most `limit`). */
export function formatReport(results: OperationResult[], limit = 40): string {
  const header = [
    'operation',
    'cases',
    'invalid',
    'edge',
    'valid',
    'valid 2xx',
    '2xx',
    '4xx',
    'other',
    'RPC calls',
    'failures',
  ];
  const rows = results.map((r) => [
    r.operationId,
    r.cases,
    r.byKind.invalid,
    r.byKind.edge,
    r.byKind.valid,
    r.validSucceeded,
    r.answers['2xx'],
    r.answers['4xx'],
    r.answers.other,
    r.chainCalls,
    r.failures.length,
  ]);
  const total = (i: number) => rows.reduce((s, r) => s + Number(r[i]), 0);
  rows.push(['total', ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(total)]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells: (string | number)[]) =>
    cells
      .map((c, i) => (i === 0 ? String(c).padEnd(widths[i] as number) : String(c).padStart(widths[i] as number)))
      .join('  ');
  const out = [line(header), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)];
  const failures = results.flatMap((r) => r.failures);
  if (failures.length > 0) {
    out.push('', `Failures (${failures.length}${failures.length > limit ? `, first ${limit}` : ''}):`);
    for (const f of failures.slice(0, limit)) {
      out.push(`- ${f.operationId} [${f.kind}] ${f.what}: ${f.problem}`);
      out.push(`    request: ${JSON.stringify(f.request).slice(1, -1)}`);
      if (f.status !== undefined) out.push(`    answer ${f.status}: ${JSON.stringify(f.answer ?? '').slice(1, -1)}`);
    }
  }
  return out.join('\n');
}

/** FUZZ_SEED and FUZZ_RUNS, or the defaults. */
export function fuzzSettings(defaultRuns: number): { seed: number; runs: number } {
  const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : DEFAULT_SEED;
  const runs = process.env.FUZZ_RUNS ? Number(process.env.FUZZ_RUNS) : defaultRuns;
  if (!Number.isSafeInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, not ${process.env.FUZZ_SEED}`);
  if (!Number.isSafeInteger(runs) || runs < 1) throw new Error(`FUZZ_RUNS must be a positive integer`);
  return { seed, runs };
}
