import { createReadStream, existsSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.xml': 'application/xml',
  '.map': 'application/json',
};

/**
 * Serves a built static site the way a static host does: `/a` → `a.html` or `a/index.html`, unknown paths →
 * `404.html` with status 404. Hashed assets are cached for a year; HTML is revalidated.
 */
export function serveStatic(
  root: string,
  port: number,
  host = '127.0.0.1',
): Promise<{ url: string; close(): Promise<void> }> {
  const resolve = (urlPath: string): string | undefined => {
    const clean = path.normalize(decodeURIComponent(urlPath)).replace(/^(\.\.(\/|\\|$))+/, '');
    const candidates = [clean, `${clean}.html`, path.join(clean, 'index.html')];
    for (const candidate of candidates) {
      const file = path.join(root, candidate);
      if (!file.startsWith(root)) return undefined;
      if (existsSync(file) && statSync(file).isFile()) return file;
    }
    return undefined;
  };
  const server = http.createServer((req, res) => {
    let file: string | undefined;
    try {
      file = resolve(new URL(req.url ?? '/', 'http://x').pathname);
    } catch {
      file = undefined;
    }
    const status = file ? 200 : 404;
    file ??= path.join(root, '404.html');
    const ext = path.extname(file);
    res.writeHead(status, {
      'content-type': TYPES[ext] ?? 'application/octet-stream',
      'cache-control': /\.[0-9a-f]{8}\./.test(file) ? 'public, max-age=31536000, immutable' : 'no-cache',
      'x-content-type-options': 'nosniff',
    });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  });
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: actual } = server.address() as AddressInfo;
      resolvePromise({
        url: `http://${host}:${actual}`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
