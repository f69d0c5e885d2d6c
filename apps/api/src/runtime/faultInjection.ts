import type { FastifyInstance } from 'fastify';

export const UNCAUGHT_EXCEPTION_MESSAGE = 'Injected fault: an exception thrown outside any request (FAULT_INJECTION=1)';

/**
 * Routes that break the process on purpose, for the tests of what survives such a break (a process supervisor
 * restarting the part, the other parts serving meanwhile). Registered only when FAULT_INJECTION=1, which the
 * configuration refuses in production. Outside the Public API prefix, so not part of the API or its document.
 */
export function registerFaultInjection(app: FastifyInstance): void {
  // Answers 202, then throws from a timer: an exception no request handler or error handler can catch.
  app.post('/_faults/uncaught-exception', { logLevel: 'warn' }, async (_request, reply) => {
    setTimeout(() => {
      throw new Error(UNCAUGHT_EXCEPTION_MESSAGE);
    }, 10);
    return reply.code(202).send({ status: 'throwing' });
  });
}
