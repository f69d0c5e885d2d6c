// Every generator of drafts for an operation, weighted, all derived from the operation's schemas, composed in a
// fixed order: the order is part of what a seed reproduces.
import fc from 'fast-check';
import { abiDrafts } from './abiDrafts.ts';
import { bodyDrafts, chunkedBodyDrafts, unexpectedBodyDrafts } from './bodyDrafts.ts';
import type { Operation } from './document.ts';
import { type Draft, weightedDrafts } from './draft.ts';
import { headerDrafts, pathDrafts, queryDrafts } from './requestDrafts.ts';
import { type Fixtures, objectOf, toJson, validValue } from './values.ts';

/** Every generator of drafts for one operation, weighted, all derived from the operation's schemas. */
export function draftsFor(op: Operation, fixtures: Fixtures, bodyLimit: number): fc.Arbitrary<Draft> {
  const body = op.body;
  const realisticBody = body ? objectOf(body, fixtures, true) : fc.constant(undefined);
  const edgeBody = body ? objectOf(body, fixtures, false) : fc.constant(undefined);
  const realisticQuery = fc.record(
    Object.fromEntries(op.query.map((p) => [p.name, validValue(p.schema, p.name, fixtures, true).map(String)])),
    { requiredKeys: op.query.filter((p) => p.required).map((p) => p.name) },
  ) as fc.Arbitrary<Record<string, string>>;
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
