import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { REPO_ROOT } from '#api/config/config.ts';
import type { Harness } from '#api-testing/harness.ts';
import { transferSubscription } from './eventNotifier.ts';

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

/**
 * The same, without blocking this process while the command runs: for tests whose simulators (Fireblocks, AWS KMS)
 * answer the command from here. `env()` adds to the harness's database, keys and chain 1337 at `rpcUrl`.
 */
export function adminCliBeside(h: () => Harness, rpcUrl: () => string, env: () => Record<string, string>) {
  return (...args: string[]) =>
    new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const environment = {
        ...process.env,
        NODE_ENV: 'development',
        DATABASE_URL: h().databaseUrl,
        MASTER_KEY: h().masterKey.toString('base64'),
        TOKEN_SIGNING_KEY: h().tokenSigningKey.toString('base64'),
        RPC_URL_1337: rpcUrl(),
        ...env(),
      };
      execFile(ADMIN_BIN, args, { env: environment }, (error, out, err) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, out, err }),
      );
    });
}

/** Creates a subscription (Transfer events of a fixed address on 1337) in the project of `key`; returns its id. */
export async function subscriptionOf(app: FastifyInstance, key: string): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/public-api/v3/event-notifier/create-subscription',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    payload: transferSubscription('0x5FbDB2315678afecb367f032d93F642f64180aa3'),
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().eventNotifierSubscription.id;
}
