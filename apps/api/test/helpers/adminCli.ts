import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '#api/config/config.ts';

const CLI = path.join(REPO_ROOT, 'apps/api/src/cli/admin.ts');

/** Runs the admin CLI as an operator would, in its own process, with `env()` over the test's environment. */
export function adminCli(env: () => Record<string, string>) {
  return (...args: string[]) => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', CLI, ...args], {
      encoding: 'utf8',
      env: { ...process.env, NODE_ENV: 'development', ...env() },
    });
    return { code: result.status, out: result.stdout, err: result.stderr };
  };
}
