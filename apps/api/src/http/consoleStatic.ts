import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Where the API serves the developer console (apps/console, built by Vite). */
export const CONSOLE_PATH = '/console/';

/**
 * The console's Content-Security-Policy: its own scripts, styles and images, calls to its own origin (the API)
 * only, no inline code of any kind, no framing, no forms posted elsewhere. Trusted Types (Chromium; other browsers
 * ignore the two directives): no string ever reaches a DOM sink that parses HTML or loads script (innerHTML,
 * script.src, …), and no policy may be made that would let one through. The build needs none: React renders
 * through DOM calls, and Vite's module preloads are <link> elements (test/console/consoleStatic.test.ts, and the
 * console's Chromium tests, which fail on any console error).
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.json', '.svg', '.txt']);

interface StaticFile {
  type: string;
  identity: Buffer;
  gzip?: Buffer;
  br?: Buffer;
  /** Files under assets/ have a content hash in their name: they never change, so browsers keep them a year. */
  immutable: boolean;
}

/** Every file of the built console, read and compressed (brotli and gzip) once, when the app is built. */
export function loadConsole(dir: string): Map<string, StaticFile> | undefined {
  if (!existsSync(path.join(dir, 'index.html'))) return undefined;
  const files = new Map<string, StaticFile>();
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) {
        const ext = path.extname(entry.name);
        const identity = readFileSync(full);
        const name = path.relative(dir, full).split(path.sep).join('/');
        const file: StaticFile = {
          type: TYPES[ext] ?? 'application/octet-stream',
          identity,
          immutable: name.startsWith('assets/'),
        };
        if (COMPRESSIBLE.has(ext) && identity.length > 512) {
          file.gzip = gzipSync(identity, { level: 9 });
          file.br = brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
        }
        files.set(name, file);
      }
    }
  };
  walk(dir);
  return files;
}

/**
 * Serves the console at /console/: its hashed assets immutable, and index.html (no-cache) for every other path
 * below it, where the console's router takes over. Each answer is the best encoding the browser accepts.
 */
export function registerConsole(app: FastifyInstance, files: Map<string, StaticFile>): void {
  const index = files.get('index.html') as StaticFile;
  app.get('/console', async (_request, reply) => reply.code(308).header('location', CONSOLE_PATH).send());
  app.get(`${CONSOLE_PATH}*`, async (request, reply) => {
    const rest = (request.params as { '*': string })['*'];
    const file = files.get(rest);
    if (file) return send(request, reply, file);
    // A missing asset is a 404 (an old page asking for a file of an earlier build), not the page.
    if (rest.startsWith('assets/') || /\.[a-z0-9]+$/i.test(rest)) {
      return reply.code(404).header('content-type', 'text/plain; charset=utf-8').send('Not found');
    }
    return send(request, reply, index);
  });
}

function send(request: FastifyRequest, reply: FastifyReply, file: StaticFile): FastifyReply {
  const accepted = String(request.headers['accept-encoding'] ?? '');
  const [encoding, body] =
    file.br && /\bbr\b/.test(accepted)
      ? ['br', file.br]
      : file.gzip && /\bgzip\b/.test(accepted)
        ? ['gzip', file.gzip]
        : [undefined, file.identity];
  reply
    .header('content-type', file.type)
    .header('content-security-policy', CONSOLE_CSP)
    .header('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
    .header('vary', 'accept-encoding');
  if (encoding) reply.header('content-encoding', encoding);
  return reply.send(body);
}
