// Drafts of everything around the body: query strings (each parameter's mutations, repeats, brackets, encoded
// garbage, unknown names), paths and methods near the operation's, and header oddities.
import fc from 'fast-check';
import type { Operation } from './document.ts';
import { type Draft, type Kind, type WeightedDraft, weightedDrafts } from './draft.ts';
import { NUMERIC_TEXT } from './edgeValues.ts';
import { type Fixtures, mutations, RawJson } from './values.ts';

export function queryString(values: Record<string, string | string[]>): string {
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

/** Query strings: `realisticQuery` gives valid values of the environment's objects, which one mutation spoils. */
export function queryDrafts(
  op: Operation,
  realisticQuery: fc.Arbitrary<Record<string, string>>,
  fixtures: Fixtures,
): WeightedDraft[] {
  const { weighted, add } = weightedDrafts();
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
  return weighted;
}

/** Paths and methods near the operation's. */
export function pathDrafts(op: Operation): WeightedDraft[] {
  const { weighted, add } = weightedDrafts();
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
  return weighted;
}

/** Header oddities. */
export function headerDrafts(op: Operation): WeightedDraft[] {
  const { weighted, add } = weightedDrafts();
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
  return weighted;
}
