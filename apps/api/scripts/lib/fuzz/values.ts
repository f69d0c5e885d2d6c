// Values for the generators: the edge cases that have broken servers before (their catalogues are edgeValues.ts),
// values each schema accepts (realistic ones from the environment's fixtures first), and the mutations each schema
// should refuse.
import fc from 'fast-check';
import type { Schema } from './document.ts';
import {
  BAD_DATE_TIMES,
  BAD_URIS,
  EDGE_STRINGS,
  NUMBERS,
  NUMERIC_TEXT,
  ODD_DATE_TIMES,
  RAW_NUMBERS,
  WRONG_TYPES,
} from './edgeValues.ts';

/** Values of the environment by property name: realistic requests use them. */
export type Fixtures = Record<string, fc.Arbitrary<unknown>>;

/**
 * A fixture value that leaves its property out of the request: for values no generator can make valid, such as an
 * opaque `cursor`, which only the API's own answers hold.
 */
export const ABSENT: unique symbol = Symbol('absent');

/** The record without its ABSENT properties. */
export function present<T extends Record<string, unknown>>(record: T): T {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== ABSENT)) as T;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/**
 * The generators' clock, read once per run and cut to the hour: the times they make are relative to it, so one seed
 * gives one set of cases.
 */
const STARTED_MS = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
/** Realistic times go this far back: inside the webhook log's retention (WEBHOOK_LOG_RETENTION_DAYS, 30 by default). */
const REALISTIC_DAYS_BACK = 29;

/** A JSON number (or other text) written into the body as is: 1e400, 9007199254740993, -0, 1.0. */
export class RawJson {
  constructor(readonly text: string) {}
}

export function toJson(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, v) =>
    v instanceof RawJson ? `\u0000fuzz-raw-${raws.push(v.text) - 1}` : v,
  );
  return text.replace(/"\\u0000fuzz-raw-(\d+)"/g, (_, i: string) => raws[Number(i)] as string);
}

/** An object with `key` as an own property, even `__proto__`. */
export function withKey(object: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const copy = { ...object };
  Object.defineProperty(copy, key, { value, enumerable: true, configurable: true, writable: true });
  return copy;
}

/** A value the schema accepts; `realistic` values (fixtures of the environment) by property name come first. */
export function validValue(
  schema: Schema,
  name: string,
  fixtures: Fixtures,
  realistic: boolean,
): fc.Arbitrary<unknown> {
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
  if (schema.format === 'date-time') return dateTimeValid(realistic);
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

/**
 * RFC 3339 times. Realistic ones are recent, in the ISO form (the last REALISTIC_DAYS_BACK days up to a day ahead of
 * STARTED_MS); the others use every form the format allows, over years 0001 to 9999 and at the extremes.
 */
function dateTimeValid(realistic: boolean): fc.Arbitrary<string> {
  const recent = fc
    .integer({ min: STARTED_MS - REALISTIC_DAYS_BACK * DAY_MS, max: STARTED_MS + DAY_MS })
    .map((ms) => new Date(ms).toISOString());
  if (realistic) return recent;
  const anyForm = fc
    .tuple(
      fc.integer({ min: Date.parse('0002-01-01T00:00:00Z'), max: Date.parse('9998-12-31T23:59:59Z') }),
      fc.constantFrom('T', 't', ' '),
      fc.constantFrom('', '.5', '.123', '.123456', '.123456789'),
      fc.constantFrom(0, 330, -720, 840, -(15 * 60 + 59), 23 * 60 + 59),
      fc.boolean(),
    )
    .map(([ms, separator, fraction, offset, colon]) => {
      const local = new Date(ms + offset * 60_000).toISOString();
      const hhmm = `${String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0')}${colon ? ':' : ''}${String(Math.abs(offset) % 60).padStart(2, '0')}`;
      const zone = offset === 0 && colon ? 'Z' : `${offset < 0 ? '-' : '+'}${hhmm}`;
      return `${local.slice(0, 10)}${separator}${local.slice(11, 19)}${fraction}${zone}`;
    });
  return fc.oneof(recent, anyForm, fc.constantFrom(...ODD_DATE_TIMES));
}

/** Objects the schema accepts; the properties named in `alwaysSent` are in each (unless their fixture is ABSENT). */
export function objectOf(
  schema: Schema,
  fixtures: Fixtures,
  realistic: boolean,
  alwaysSent: string[] = [],
): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties))
    model[name] = validValue(property, name, fixtures, realistic);
  const sent = alwaysSent.filter((name) => name in properties);
  return fc
    .record(model, { requiredKeys: [...new Set([...(schema.required ?? []), ...sent])] })
    .map((record) => present(record as Record<string, unknown>));
}

/** Values the schema should refuse (the oracle has the last word): the mutations of one property. */
export function mutations(schema: Schema, name: string, fixtures: Fixtures): fc.Arbitrary<unknown> {
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
  if (schema.format === 'date-time') options.push(fc.constantFrom(...BAD_DATE_TIMES));
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

export function brief(value: unknown): string {
  if (value instanceof RawJson) return value.text.slice(0, 40);
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 30)}… (${text.length} chars)` : text;
}
