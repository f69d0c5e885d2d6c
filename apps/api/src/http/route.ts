import type { FastifyRequest } from 'fastify';
import type { Static, TSchema } from 'typebox';
import type { ErrorCode } from '#api/errors/catalogue.ts';
import type { AppDeps } from './appDeps.ts';
import type { Principal, RouteAuth } from './authenticate.ts';

export type Tag = 'Project' | 'Event Notifier' | 'Contract' | 'Transaction' | 'Webhook';

export interface HandlerContext<B, Q> {
  body: B;
  query: Q;
  principal: Principal;
  deps: AppDeps;
  request: FastifyRequest;
}

/**
 * One operation of the Public API, fully self-described: the OpenAPI document, the validation and the
 * authorization all come from this object.
 */
export interface RouteDefinition<
  B extends TSchema | undefined = TSchema | undefined,
  Q extends TSchema | undefined = TSchema | undefined,
  R extends TSchema = TSchema,
> {
  method: 'GET' | 'POST';
  /** Path below /public-api/v3. */
  url: string;
  operationId: string;
  tag: Tag;
  summary: string;
  description: string;
  auth: RouteAuth;
  body?: B;
  querystring?: Q;
  requestExample?: B extends TSchema ? Static<B> : never;
  response: { status: 200 | 201; schema: R; description: string; example: Static<R> };
  /** Error codes this operation answers besides the ones every operation can (auth, validation, 429, 500). */
  errors: ErrorCode[];
  /** The placeholders of an error's example answer where this operation's own differ from the catalogue's. */
  errorExamples?: Partial<Record<ErrorCode, Record<string, string>>>;
  handler: (
    ctx: HandlerContext<B extends TSchema ? Static<B> : undefined, Q extends TSchema ? Static<Q> : undefined>,
  ) => Promise<Static<R>>;
}

export function defineRoute<
  B extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
  R extends TSchema = TSchema,
>(route: RouteDefinition<B, Q, R>): RouteDefinition<B, Q, R> {
  return route;
}
