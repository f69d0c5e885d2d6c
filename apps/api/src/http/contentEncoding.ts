import type { FastifyInstance } from 'fastify';
import { ApiError } from '#api/errors/ApiError.ts';

/**
 * Refuses compressed request bodies with 415. Fastify would read gzip bytes as JSON and answer a puzzling
 * `INVALID_JSON`; decompressing instead would let a small body expand past the body limit (a zip bomb).
 */
export function registerContentEncodingCheck(app: FastifyInstance): void {
  app.addHook('preParsing', async (request, _reply, payload) => {
    const encoding = request.headers['content-encoding'];
    const hasBody = request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length']) > 0;
    if (hasBody && encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
      throw new ApiError('UNSUPPORTED_CONTENT_ENCODING', { encoding: encoding.slice(0, 40) });
    }
    return payload;
  });
}
