import type { WebhookEvent } from './events.ts';
import { HANDLER_OPTIONS, handleDelivery, setupHandler } from './handleDelivery.ts';
import type { WebhookSecrets } from './secret.ts';
import type { HandlerOptions, WebhookEventHandler } from './types.ts';
import type { WebhookRequestHeaders } from './verify.ts';

// Structural types for the few Fastify features used, so the package needs neither fastify nor its types.
// Fastify 4 and 5 instances match them.

/**
 * The parts of a Fastify request the plugin reads.
 *
 * @example
 * ```ts
 * import type { FastifyRequest } from 'fastify';
 * import type { FastifyRequestLike } from '@mountain/webhook-sdk';
 *
 * const fits = (request: FastifyRequest): FastifyRequestLike => request;
 * ```
 */
export interface FastifyRequestLike {
  headers: WebhookRequestHeaders;
  body?: unknown;
}

/**
 * The parts of a Fastify reply the plugin uses.
 *
 * @example
 * ```ts
 * import type { FastifyReply } from 'fastify';
 * import type { FastifyReplyLike } from '@mountain/webhook-sdk';
 *
 * const fits = (reply: FastifyReply): FastifyReplyLike => reply;
 * ```
 */
export interface FastifyReplyLike {
  code(statusCode: number): FastifyReplyLike;
  header(name: string, value: string): FastifyReplyLike;
  send(payload?: unknown): FastifyReplyLike;
}

/**
 * The parts of a Fastify instance the plugin uses: it replaces the body parsers of its own encapsulated context
 * with a raw-bytes parser and adds one POST route.
 *
 * @example
 * ```ts
 * import Fastify from 'fastify';
 * import type { FastifyInstanceLike } from '@mountain/webhook-sdk';
 *
 * const fits: FastifyInstanceLike = Fastify();
 * ```
 */
export interface FastifyInstanceLike {
  removeAllContentTypeParsers(): void;
  addContentTypeParser(
    contentType: string,
    opts: { parseAs: 'buffer'; bodyLimit?: number },
    parser: (request: never, body: Uint8Array, done: (error: Error | null, body?: unknown) => void) => void,
  ): void;
  route(options: {
    method: 'POST';
    url: string;
    bodyLimit: number;
    handler: (request: FastifyRequestLike, reply: FastifyReplyLike) => Promise<unknown>;
  }): unknown;
}

/**
 * Options of {@link createFastifyPlugin}.
 *
 * @example
 * ```ts
 * import type { FastifyPluginOptions } from '@mountain/webhook-sdk';
 *
 * const options: FastifyPluginOptions = { path: '/hooks/mountain', tolerance: 300 };
 * ```
 */
export interface FastifyPluginOptions extends HandlerOptions {
  /** The route's path inside the plugin's prefix. Default `/webhooks`. */
  path?: string;
}

const FASTIFY_OPTIONS = [...HANDLER_OPTIONS, 'path'] as const;

/**
 * Creates a Fastify (4 or 5) plugin with one POST route that verifies webhooks and calls `onEvent` with the
 * typed event.
 *
 * Raw body: inside the plugin's encapsulated context it removes the JSON parser and registers a parser that
 * keeps every content type as a `Buffer`; the rest of your app still parses JSON as usual. Fastify's `bodyLimit`
 * for the route is `maxBodyBytes`.
 *
 * Answers 204 when `onEvent` returns and 400 `{ code, message, … }` when verification fails. When `onEvent`
 * throws, the route throws a {@link WebhookHandlerError} (`statusCode` 500, your error as `cause`): Fastify logs
 * it and answers 500, so the sender retries.
 *
 * @param secret The subscription's `webhookSecret`; a bad one throws {@link InvalidSecretError} right away.
 * @param onEvent Your handler; `context.request` is the Fastify request.
 * @param options `path` (default `/webhooks`), `tolerance`, `now`, `maxBodyBytes`; unknown options throw.
 * @example
 * ```ts
 * import Fastify from 'fastify';
 * import { createFastifyPlugin } from '@mountain/webhook-sdk';
 *
 * const app = Fastify({ logger: true });
 * await app.register(
 *   createFastifyPlugin(process.env.MOUNTAIN_WEBHOOK_SECRET ?? '', async (event) => {
 *     app.log.info({ decodedLog: event.data.decodedLog }, event.data.event.name);
 *   }),
 * ); // POST /webhooks
 * await app.listen({ port: 3000 });
 * ```
 */
export function createFastifyPlugin<Req extends FastifyRequestLike = FastifyRequestLike, T = WebhookEvent>(
  secret: WebhookSecrets,
  onEvent: WebhookEventHandler<Req, T>,
  options?: FastifyPluginOptions,
): (instance: FastifyInstanceLike) => Promise<void> {
  const setup = setupHandler<Req>('createFastifyPlugin', secret, onEvent, options, FASTIFY_OPTIONS);
  const path = options?.path ?? '/webhooks';
  if (typeof path !== 'string' || !path.startsWith('/')) {
    throw new TypeError('createFastifyPlugin: path must be a string starting with "/"');
  }
  return async (instance) => {
    // Scoped to this plugin's context by Fastify's encapsulation: sibling routes keep their JSON parser.
    instance.removeAllContentTypeParsers();
    instance.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    instance.route({
      method: 'POST',
      url: path,
      bodyLimit: setup.maxBodyBytes,
      handler: async (request, reply) => {
        const body = request.body instanceof Uint8Array ? request.body : new Uint8Array(0);
        const input = { method: undefined, body, headers: request.headers, request: request as Req };
        const result = await handleDelivery(setup, input);
        if ('error' in result && result.error) throw result.error;
        if (!('body' in result)) return reply.code(result.status).send();
        for (const [name, value] of Object.entries(result.headers ?? {})) reply.header(name, value);
        return reply.code(result.status).send(result.body);
      },
    });
  };
}
