import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '#api/config/config.ts';

/** The `mountain-admin` command as npm links it (the `bin` of @mountain/api). */
export const ADMIN_BIN = path.join(REPO_ROOT, 'node_modules/.bin/mountain-admin');

/** Runs the admin CLI as an operator would, through its bin, in its own process, with `env()` over the test's. */
export function adminCli(env: () => Record<string, string>) {
  return (...args: string[]) => {
    const result = spawnSync(ADMIN_BIN, args, {
      encoding: 'utf8',
      env: { ...process.env, NODE_ENV: 'development', ...env() },
    });
    return { code: result.status, out: result.stdout, err: result.stderr };
  };
}
