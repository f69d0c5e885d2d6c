import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export const BUILD_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../build');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.woff2': 'font/woff2',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.json', '.svg', '.txt', '.xml']);

function isFile(file: string): boolean {
  return existsSync(file) && statSync(file).isFile();
}

/** Every file under `root`, read once: later rebuilds of the directory do not disturb a running server. */
function snapshot(root: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) files.set(full, readFileSync(full));
    }
  };
  walk(root);
  return files;
}

/**
 * Maps a URL path to a file the way common static hosts do: the file itself, `<path>.html`,
 * `<path>/index.html`, and for a path ending in `.html` that has no such file, the page without the suffix
 * ("clean URLs"). Anything else is the 404 page with status 404. The site's router then strips the suffix from
 * the address.
 */
export function resolveFile(
  root: string,
  urlPath: string,
  exists: (file: string) => boolean = isFile,
): { file: string; status: number } | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined; // not a path anyone could have meant (a broken percent-escape)
  }
  const clean = path.posix.normalize(decoded).replace(/^(\.\.\/?)+/, '');
  const base = path.join(root, clean);
  if (!base.startsWith(root)) return { file: path.join(root, '404.html'), status: 404 };
  const stripped = path.join(root, clean.replace(/(?:\/index)?\.html$/, ''));
  const candidates = [base, `${base}.html`, path.join(base, 'index.html'), path.join(stripped, 'index.html')];
  const found = candidates.find(exists);
  return found ? { file: found, status: 200 } : { file: path.join(root, '404.html'), status: 404 };
}

export interface StaticSite {
  origin: string;
  close(): Promise<void>;
}

/**
 * Serves a snapshot of the built site on loopback (a free port unless one is given; another address when given, as
 * in the container image), gzip-compressed like a production host. Used by `npm start`, the docs image, the browser
 * tests and the Lighthouse benchmark.
 */
export async function serveBuild(root = BUILD_DIR, port = 0, host = '127.0.0.1'): Promise<StaticSite> {
  const files = existsSync(root) ? snapshot(root) : new Map<string, Buffer>();
  for (const page of ['index.html', '404.html']) {
    if (!files.has(path.join(root, page))) {
      throw new Error(`No complete built site in ${root}: run \`npm run build -w @mountain/docs\` first`);
    }
  }
  const cache = new Map<string, { raw: Buffer; gzip?: Buffer }>();
  const server: Server = createServer((request, response) => {
    let url: URL | undefined;
    try {
      url = new URL(request.url ?? '/', 'http://127.0.0.1');
    } catch {}
    const resolved = url && resolveFile(root, url.pathname, (candidate) => files.has(candidate));
    if (!url || !resolved) {
      // One request the server cannot read answers 400; it never takes the server (or `npm start`) down.
      response.writeHead(400, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' });
      response.end('Bad request: the address is not a valid URL path (a broken percent-escape?)\n');
      return;
    }
    const { file, status } = resolved;
    const extension = path.extname(file);
    let entry = cache.get(file);
    if (!entry) {
      const raw = files.get(file) ?? Buffer.alloc(0);
      entry = { raw, gzip: COMPRESSIBLE.has(extension) ? gzipSync(raw) : undefined };
      cache.set(file, entry);
    }
    const gzip = entry.gzip && /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
    const body = gzip && entry.gzip ? entry.gzip : entry.raw;
    response.writeHead(status, {
      'content-type': TYPES[extension] ?? 'application/octet-stream',
      'content-length': body.length,
      'cache-control': url.pathname.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
      'x-content-type-options': 'nosniff',
      ...(gzip ? { 'content-encoding': 'gzip', vary: 'accept-encoding' } : {}),
    });
    response.end(request.method === 'HEAD' ? undefined : body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const listening = (server.address() as AddressInfo).port;
  return {
    origin: `http://${host}:${listening}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
