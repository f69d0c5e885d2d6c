import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** What the console's build reads: its own sources, and the client SDK it calls the API through. */
const SOURCES = ['src', 'public', 'index.html', 'vite.config.ts', 'package.json', '../../packages/client/src'];

function newestMtime(target: string): number {
  if (!existsSync(target)) return 0;
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(target)) newest = Math.max(newest, newestMtime(path.join(target, entry)));
  return newest;
}

/** Whether the console's `dist/` is newer than every source file. */
export function consoleIsBuilt(consoleDir: string): boolean {
  const index = path.join(consoleDir, 'dist', 'index.html');
  const built = existsSync(index) ? statSync(index).mtimeMs : 0;
  return built > Math.max(...SOURCES.map((s) => newestMtime(path.join(consoleDir, s))));
}

/** Builds the developer console unless `dist/` is newer than every source file. Returns the dist folder. */
export function ensureConsoleBuilt(consoleDir: string, log: (line: string) => void): string {
  const dist = path.join(consoleDir, 'dist');
  if (consoleIsBuilt(consoleDir)) return dist;
  log('Building the developer console (first start, or it changed)…');
  const result = spawnSync('npm', ['run', '-s', 'build'], { cwd: consoleDir, stdio: ['ignore', 'ignore', 'inherit'] });
  if (result.status !== 0) {
    throw new Error('The console build failed (run `npm run build -w @mountain/console` to see why)');
  }
  return dist;
}
