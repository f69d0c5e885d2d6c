// Drafts of request bodies: one property mutated or several, missing and extra fields, whole bodies that are not
// objects or not JSON, content types, sizes around BODY_LIMIT, chunked framing; and bodies sent where none is taken.
import fc from 'fast-check';
import type { Schema } from './document.ts';
import { type Draft, type Kind, type WeightedDraft, weightedDrafts } from './draft.ts';
import { brief, type Fixtures, mutations, toJson, withKey } from './values.ts';

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

/** The drafts of an operation that takes `body`; `realisticBody` makes valid bodies of the environment's objects. */
export function bodyDrafts(
  body: Schema,
  realisticBody: fc.Arbitrary<unknown>,
  fixtures: Fixtures,
  bodyLimit: number,
): WeightedDraft[] {
  const { weighted, add } = weightedDrafts();
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
      ...properties.flatMap(([n]) => [n.toUpperCase(), `${n} `, `${n}\u0000`, n.replace(/^./, (c) => c.toUpperCase())]),
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
  return weighted;
}

/** The drafts of an operation that takes no body. */
export function unexpectedBodyDrafts(bodyLimit: number): WeightedDraft[] {
  const { weighted, add } = weightedDrafts();
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
  return weighted;
}

/** A valid body sent in chunks (Transfer-Encoding: chunked, no Content-Length). */
export function chunkedBodyDrafts(realisticBody: fc.Arbitrary<unknown>): WeightedDraft[] {
  const { weighted, add } = weightedDrafts();
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
  return weighted;
}
