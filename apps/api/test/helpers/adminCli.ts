import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { REPO_ROOT } from '#api/config/config.ts';
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
