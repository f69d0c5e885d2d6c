// Fuzz cases: drafts turned into the raw HTTP requests sent, with credentials, framing, and the oracle's verdict.
import type { RawRequest } from '@mountain/testkit/rawHttp.ts';
import fc from 'fast-check';
import { createOracle, type Operation, type Oracle } from './document.ts';
import type { Draft, Kind } from './draft.ts';
import { draftsFor } from './draftsFor.ts';
import { queryString } from './requestDrafts.ts';
import type { Fixtures } from './values.ts';

export interface FuzzCase extends RawRequest {
  operationId: string;
  kind: Kind;
  /** What was done, short, for the report. */
  what: string;
  /** A 400 VALIDATION_FAILED must name one of these fields (or a field inside one). */
  fields?: string[];
}

export interface Credentials {
  apiKey: string;
  /** An access token of an admin of the API key's project. */
  token: string;
}

/** Turns a draft into the request sent: credentials, framing, and the oracle's verdict on its validity. */
function finish(op: Operation, draft: Draft, oracle: Oracle, credentials: Credentials): FuzzCase {
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

/**
 * `runs` cases for one operation, the same for the same seed. `operationFixtures`: the operation's own, which take
 * the place of the shared `fixtures` of the same name.
 */
export function generateCases(
  op: Operation,
  options: {
    seed: number;
    runs: number;
    fixtures: Fixtures;
    operationFixtures?: Fixtures | undefined;
    credentials: Credentials;
    bodyLimit: number;
  },
  oracle = createOracle([op]),
): FuzzCase[] {
  const drafts = fc.sample(draftsFor(op, options.fixtures, options.bodyLimit, options.operationFixtures), {
    seed: options.seed,
    numRuns: options.runs,
  });
  return drafts.map((d) => finish(op, d, oracle, options.credentials));
}
