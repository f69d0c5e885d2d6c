// The admin CLI beside a running `npm start`: npm start describes the platform it runs (its PID, URLs and the
// settings that differ from the defaults: API_PORT, CONSOLE_URL, EMBEDDED_PG_PORT) in `<DATA_DIR>/npm-start.json`,
// so that `npm run admin -- console-link …` reaches its database and prints links to its port, whatever ports it
// was started on. Variables set for the CLI itself still win.
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** What `npm start` writes under `platform` in its state file. */
export interface RunningPlatform {
  pid: number;
  apiUrl: string;
  consoleUrl: string;
  docsUrl: string;
  /** The environment variables the CLI needs to act on this platform. */
  env: Record<string, string>;
}

export const STATE_FILE = 'npm-start.json';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The platform `npm start` runs with the data directory `dataDir`, or undefined when none runs. */
export function runningPlatform(dataDir: string): RunningPlatform | undefined {
  let text: string;
  try {
    text = readFileSync(path.join(dataDir, STATE_FILE), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const platform = (JSON.parse(text) as { platform?: RunningPlatform }).platform;
    if (!platform || typeof platform.pid !== 'number' || !alive(platform.pid)) return undefined;
    return platform;
  } catch {
    return undefined; // being rewritten, or not ours: the defaults apply
  }
}

/** `env` with the running platform's settings under it (what `env` sets itself is kept). */
export function withRunningPlatform(env: NodeJS.ProcessEnv, dataDir: string): NodeJS.ProcessEnv {
  const platform = runningPlatform(dataDir);
  if (!platform) return env;
  const fromPlatform = Object.fromEntries(
    Object.entries(platform.env).filter(([name]) => env[name] === undefined || env[name] === ''),
  );
  return { ...env, ...fromPlatform };
}
