import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Where `npm start` leaves the FIREBLOCKS_* variables of the Fireblocks simulator it runs (in DATA_DIR, while it
 * runs), so that the admin CLI of a development install reaches the same simulated workspace as the API and worker.
 */
export const DEV_FIREBLOCKS_FILE = 'fireblocks-simulator.json';

/** The simulated workspace's asset of the local chain 1337. */
export const LOCAL_FIREBLOCKS_ASSET = 'ETH_LOCAL';

/** The simulator's variables while `npm start` runs it; none otherwise. Development only (see loadConfig). */
export function devFireblocksEnv(dataDir: string): Record<string, string> {
  const file = path.join(dataDir, DEV_FIREBLOCKS_FILE);
  if (!existsSync(file)) return {};
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
}
