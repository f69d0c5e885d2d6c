import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { validationError } from '#api/errors/ApiError.ts';

/**
 * Requests Node's HTTP parser refuses before any route sees them (a header name with a space, a NUL in a header, an
 * unknown method, both Content-Length and Transfer-Encoding, headers over 16 KB) get the one error shape too, with
 * what is wrong in `details`, instead of Fastify's default `{error, message, statusCode}`.
 */
export function answerClientError(
  error: NodeJS.ErrnoException & { reason?: string },
  socket: Socket,
  log?: FastifyBaseLogger,
): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    // The client did not send its whole request in time (a stalled or dripping body): the connection is closed.
    log?.warn({ remoteAddress: socket.remoteAddress }, 'request not received in time: connection closed');
    socket.destroy(error);
    return;
  }
  const body = JSON.stringify(
    error.code === 'HPE_HEADER_OVERFLOW'
      ? validationError([
          { field: 'request', message: 'has a URL and headers larger than the server accepts (16 KB in all)' },
        ]).toBody()
      : validationError([
          { field: 'request', message: `is not valid HTTP/1.1: ${error.reason ?? error.code ?? 'unreadable'}` },
        ]).toBody(),
  );
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/**
 * Two refusals Node makes itself with an empty body: an HTTP/1.1 request without Host (refused here instead, in
 * the error shape; the server is created with `requireHostHeader: false`), and an `Expect` other than
 * 100-continue (417). An unknown expectation is ignored and the request served, which RFC 9110 §10.1.1 allows.
 */
export function registerProtocolChecks(app: FastifyInstance): void {
  app.server.on('checkExpectation', (request, response) => app.server.emit('request', request, response));
  app.addHook('onRequest', async (request) => {
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      throw validationError([{ field: 'headers.host', message: 'is required in HTTP/1.1' }]);
    }
  });
}
