// The two static sites npm start serves, the docs and the developer console, are built when missing or older than
// one of their sources, so that a clone runs with `npm install && npm start` and an edit shows at the next start.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

interface Site {
  /** The workspace folder under the repository's root. */
  dir: string;
  /** Its build's output folder, and the file in it that a finished build has written. */
  output: string;
  marker: string;
  /** What the build reads: paths in the workspace, or absolute. */
  sources: string[];
  name: string;
}

const DOCS: Site = {
  dir: 'apps/docs',
  output: 'build',
  marker: 'index.html',
  // The OpenAPI document the site renders and serves lives in its own package.
  sources: [
    'docs',
    'src',
    'static',
    'plugins',
    'docusaurus.config.ts',
    'sidebars.ts',
    'package.json',
    createRequire(import.meta.url).resolve('@mountain/openapi/public-api-v3.json'),
  ],
  name: 'docs site',
};

const CONSOLE: Site = {
  dir: 'apps/console',
  output: 'dist',
  marker: 'index.html',
  // Its own sources, and the client SDK it calls the API through.
  sources: ['src', 'public', 'index.html', 'vite.config.ts', 'package.json', '../../packages/client/src'],
  name: 'developer console',
};

function newestMtime(target: string): number {
  if (!existsSync(target)) return 0;
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(target)) newest = Math.max(newest, newestMtime(path.join(target, entry)));
  return newest;
}

function isBuilt(root: string, site: Site): boolean {
  const marker = path.join(root, site.dir, site.output, site.marker);
  const built = existsSync(marker) ? statSync(marker).mtimeMs : 0;
  return built > Math.max(...site.sources.map((s) => newestMtime(path.resolve(root, site.dir, s))));
}

/** Not spawnSync: the caller's embedded PostgreSQL writes to pipes this process must go on reading meanwhile. */
async function ensureBuilt(root: string, site: Site, log: (line: string) => void): Promise<string> {
  const output = path.join(root, site.dir, site.output);
  if (isBuilt(root, site)) return output;
  log(`Building the ${site.name} (first start, or it changed)…`);
  const cwd = path.join(root, site.dir);
  const child = spawn('npm', ['run', '-s', 'build'], { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`The ${site.name} build failed (run \`npm run build\` in ${site.dir})`);
  return output;
}

/** Builds the docs site unless `build/` is newer than every source file. Returns the build folder. */
export const ensureDocsBuilt = (root: string, log: (line: string) => void) => ensureBuilt(root, DOCS, log);

/** Builds the developer console unless `dist/` is newer than every source file. Returns the dist folder. */
export const ensureConsoleBuilt = (root: string, log: (line: string) => void) => ensureBuilt(root, CONSOLE, log);

/** Whether the console's `dist/` is newer than every source file. */
export const consoleIsBuilt = (root: string) => isBuilt(root, CONSOLE);
