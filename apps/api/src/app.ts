import { randomUUID } from 'node:crypto';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import { isConnectionLoss } from '#api/db/db.ts';
import { ApiError, validationError } from '#api/errors/ApiError.ts';
import { API_PREFIX, type AppDeps, DEFAULT_REQUEST_TIMEOUT_MS } from '#api/http/appDeps.ts';
import { authenticate, type Principal } from '#api/http/authenticate.ts';
import { answerClientError, registerProtocolChecks } from '#api/http/clientErrors.ts';
import { loadConsole, registerConsole } from '#api/http/consoleStatic.ts';
import { registerContentEncodingCheck } from '#api/http/contentEncoding.ts';
import { DEFAULT_CORS, registerCors } from '#api/http/cors.ts';
import { createRateLimiter, type RateLimiter } from '#api/http/rateLimit.ts';
import { DEFAULT_RATE_LIMIT } from '#api/http/rateLimitSettings.ts';
import type { RouteDefinition } from '#api/http/route.ts';
import { registerSecurityHeaders, SECURITY_HEADERS } from '#api/http/securityHeaders.ts';
import { compileSerializer } from '#api/http/serialization.ts';
import { compileValidator, fieldErrors } from '#api/http/validation.ts';
import { registerHttpMetrics } from '#api/metrics/httpMetrics.ts';
import { registerMetricsRoute } from '#api/metrics/metricsRoute.ts';
import { registerFireblocksWebhook } from '#api/routes/fireblocksWebhook.ts';
import { registerHealthRoutes } from '#api/routes/health.ts';
import { routes } from '#api/routes/index.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Builds the Public API app without listening: main.ts listens, tests call inject() or listen on port 0. */
export function buildApp(deps: AppDeps, options: { logger?: FastifyServerOptions['logger'] } = {}): FastifyInstance {
  let log: FastifyBaseLogger | undefined;
  const requestTimeout = deps.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: deps.bodyLimit,
    // Honour a caller's X-Request-Id when it is sane, so logs can be correlated end to end.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    requestIdHeader: false,
    ajv: { customOptions: { removeAdditional: false } },
    // A request not received in whole within the timeout (a body sent a byte at a time) is cut off; Node looks
    // for such connections every second. Node applies the request timeout only when the headers' one is not
    // longer (and only as given when the server is created).
    requestTimeout,
    http: {
      requireHostHeader: false,
      connectionsCheckingInterval: 1_000,
      requestTimeout,
      headersTimeout: Math.min(requestTimeout, 60_000),
    },
    clientErrorHandler: (error, socket) => answerClientError(error, socket, log),
    // Behind the listed proxies, `request.ip` (the rate limits' client, the logs' remoteAddress) is the client their
    // X-Forwarded-For names; elsewhere that header is ignored (http/trustedProxies.ts).
    ...(deps.trustedProxies?.length ? { trustProxy: [...deps.trustedProxies] } : {}),
    // A path that cannot be decoded (`/%ZZ`) is refused by the router, before any hook or the error handler: it
    // gets the error shape and the headers of every answer here.
    frameworkErrors: answerUndecodablePath,
  });
  log = app.log;
  app.setValidatorCompiler(compileValidator);
  app.setSerializerCompiler(compileSerializer);
  app.setSchemaErrorFormatter((errors, dataVar) => validationError(fieldErrors(errors, dataVar)));
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  registerHttpMetrics(app);
  registerProtocolChecks(app);
  registerSecurityHeaders(app);
  registerCors(app, deps.cors ?? DEFAULT_CORS);
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = toApiError(error, request.id, deps.bodyLimit);
    if (apiError.statusCode >= 500) request.log.error({ err: error }, 'request failed');
    if (apiError.headers) reply.headers(apiError.headers);
    return reply.code(apiError.statusCode).send(apiError.toBody());
  });
  app.setNotFoundHandler((request, reply) => {
    const error = new ApiError('ROUTE_NOT_FOUND', { method: request.method, url: request.url.split('?')[0] ?? '' });
    return reply.code(404).send(error.toBody());
  });

  registerHealthRoutes(app, deps);
  registerFireblocksWebhook(app, deps);
  const consoleFiles = deps.consoleDir ? loadConsole(deps.consoleDir) : undefined;
  if (consoleFiles) registerConsole(app, consoleFiles);
  // On the API's own port only with a token: without one, metrics are served on METRICS_PORT or not at all.
  if (deps.metricsToken) registerMetricsRoute(app, deps, deps.metricsToken);
  const limiter = createRateLimiter(deps.db, deps.rateLimit ?? DEFAULT_RATE_LIMIT);
  app.register(
    async (api) => {
      // The API speaks JSON only; Fastify would otherwise accept text/plain bodies too.
      api.removeContentTypeParser('text/plain');
      registerContentEncodingCheck(api);
      for (const route of routes) registerRoute(api, route, deps, limiter);
    },
    { prefix: API_PREFIX },
  );
  return app;
}

function registerRoute(app: FastifyInstance, route: RouteDefinition, deps: AppDeps, limiter: RateLimiter): void {
  app.route({
    method: route.method,
    url: route.url,
    config: { operation: route.operationId },
    schema: {
      ...(route.body ? { body: route.body } : {}),
      ...(route.querystring ? { querystring: route.querystring } : {}),
      response: { [route.response.status]: route.response.schema },
    },
    // Credentials are checked before the body is even read: an anonymous caller learns nothing about validation.
    // The auth-failure limit is asked before an API key is looked up; then the request counts against its
    // credential's rate limit, or a refused one against its address's.
    onRequest: async (request, reply) => {
      const gate = {
        before: (credential: string) => limiter.beforeLookup(request, reply, credential),
        verified: (credential: string) => limiter.verified(credential),
      };
      try {
        request.principal = await authenticate(request, route.auth, deps, gate);
      } catch (error) {
        if (error instanceof ApiError && error.code !== 'RATE_LIMITED') await limiter.refused(request, reply);
        throw error;
      }
      // A call without credentials (a sign-in link's exchange) counts against its address, in a bucket of its own.
      if (request.principal.kind === 'anonymous') await limiter.exchange(request, reply);
      else await limiter.admit(request.principal, reply);
    },
    handler: async (request, reply) => {
      const result = await route.handler({
        body: request.body as never,
        query: request.query as never,
        principal: request.principal as Principal,
        deps,
        request,
      });
      return reply.code(route.response.status).send(result);
    },
  });
}

/** The router's refusal of a path it cannot decode (`/%ZZ`), in the error shape with every answer's headers. */
function answerUndecodablePath(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply
    .code(400)
    .headers({ ...SECURITY_HEADERS, 'x-request-id': request.id })
    .send(validationError([{ field: 'request', message: error.message }]).toBody());
}

/** Maps anything thrown while serving a request to the one error shape. */
function toApiError(error: FastifyError, requestId: string, bodyLimit: number): ApiError {
  if (error instanceof ApiError) return error;
  if (error.validation) return validationError(fieldErrors(error.validation, error.validationContext ?? 'body'));
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('UNSUPPORTED_MEDIA_TYPE', { contentType: 'of this request' });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('PAYLOAD_TOO_LARGE', { limit: bodyLimit });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('INVALID_JSON');
  }
  if (error instanceof SyntaxError && error.statusCode === 400) return new ApiError('INVALID_JSON');
  if (isConnectionLoss(error)) {
    return new ApiError(
      'SERVICE_UNAVAILABLE',
      { reason: 'the database is unreachable' },
      { cause: error, headers: { 'retry-after': '5' } },
    );
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return validationError([{ field: 'request', message: error.message }]);
  }
  return new ApiError('INTERNAL_ERROR', { requestId }, { cause: error });
}
