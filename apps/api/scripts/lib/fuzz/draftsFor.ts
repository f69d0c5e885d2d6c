// Every generator of drafts for an operation, weighted, all derived from the operation's schemas, composed in a
// fixed order: the order is part of what a seed reproduces.
import fc from 'fast-check';
import { abiDrafts } from './abiDrafts.ts';
import { bodyDrafts, chunkedBodyDrafts, unexpectedBodyDrafts } from './bodyDrafts.ts';
import type { Operation } from './document.ts';
import { type Draft, weightedDrafts } from './draft.ts';
import { headerDrafts, pathDrafts, queryDrafts } from './requestDrafts.ts';
import { type Fixtures, objectOf, present, toJson, validValue } from './values.ts';

/**
 * Every generator of drafts for one operation, weighted, all derived from the operation's schemas. `own`: the
 * operation's own fixtures, which take the place of the shared ones of the same name and are in every realistic
 * request (where the document cannot say that one of two optional fields is needed).
 */
export function draftsFor(op: Operation, shared: Fixtures, bodyLimit: number, own: Fixtures = {}): fc.Arbitrary<Draft> {
  const fixtures = { ...shared, ...own };
  const sent = Object.keys(own);
  const body = op.body;
  const realisticBody = body ? objectOf(body, fixtures, true, sent) : fc.constant(undefined);
  const edgeBody = body ? objectOf(body, fixtures, false) : fc.constant(undefined);
  const realisticQuery = fc
    .record(Object.fromEntries(op.query.map((p) => [p.name, validValue(p.schema, p.name, fixtures, true)])), {
      requiredKeys: op.query.filter((p) => p.required || sent.includes(p.name)).map((p) => p.name),
    })
    .map((values) => Object.fromEntries(Object.entries(present(values)).map(([k, v]) => [k, String(v)])));
  const asText = (value: unknown) => (value === undefined ? undefined : toJson(value));
  const { weighted, add } = weightedDrafts();

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

  weighted.push(...(body ? bodyDrafts(body, realisticBody, fixtures, bodyLimit) : unexpectedBodyDrafts(bodyLimit)));
  weighted.push(...queryDrafts(op, realisticQuery, fixtures));
  weighted.push(...pathDrafts(op));
  weighted.push(...headerDrafts(op));
  if (body) weighted.push(...chunkedBodyDrafts(realisticBody));
  if (body) weighted.push(...abiDrafts(body, realisticBody));
  return fc.oneof(...weighted);
}
