import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const SOURCES = ['docs', 'src', 'static', 'plugins', 'docusaurus.config.ts', 'sidebars.ts', 'package.json'];
/** The OpenAPI document the site renders and serves lives in its own package. */
const OPENAPI_FILE = createRequire(import.meta.url).resolve('@mountain/openapi/public-api-v3.json');

function newestMtime(target: string): number {
  if (!existsSync(target)) return 0;
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(target)) newest = Math.max(newest, newestMtime(path.join(target, entry)));
  return newest;
}

/** Builds the docs site unless `build/` is newer than every source file. Returns the build folder. */
export function ensureDocsBuilt(docsDir: string, log: (line: string) => void): string {
  const build = path.join(docsDir, 'build');
  const built = existsSync(path.join(build, 'index.html')) ? statSync(path.join(build, 'index.html')).mtimeMs : 0;
  const sources = Math.max(...SOURCES.map((s) => newestMtime(path.join(docsDir, s))), newestMtime(OPENAPI_FILE));
  if (built > sources) return build;
  log('Building the docs site (first start, or the docs changed)…');
  const result = spawnSync('npm', ['run', '-s', 'build'], { cwd: docsDir, stdio: ['ignore', 'ignore', 'inherit'] });
  if (result.status !== 0) throw new Error('The docs build failed (run `npm run build -w @mountain/docs` to see why)');
  return build;
}
