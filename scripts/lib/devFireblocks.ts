import { createPublicKey, generateKeyPairSync, randomUUID } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startFireblocksSimulator } from '@mountain/testkit/fireblocks/startFireblocksSimulator.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { DEV_FIREBLOCKS_FILE, LOCAL_FIREBLOCKS_ASSET } from '../../apps/api/src/wallets/fireblocks/devSimulator.ts';

/**
 * `npm start` without FIREBLOCKS_API_KEY: a Fireblocks simulator (packages/testkit) signing for the local chain, so
 * that a Fireblocks project can be made and used with no Fireblocks account. Its API user's RSA key is made once in
 * DATA_DIR (mode 0600) and registered with it at every start; its vault accounts, keys' seed and transactions are
 * kept in DATA_DIR too, as the projects that name them are kept in the database. The API, the worker and the admin
 * CLI find it through DEV_FIREBLOCKS_FILE (development only: with FIREBLOCKS_API_KEY set, or in production, it is
 * never read). Returns the FIREBLOCKS_* variables for the parts, and stop().
 */
export async function startDevFireblocks(dataDir: string, rpcUrl: string, apiPort: number) {
  const keyFile = path.join(dataDir, 'fireblocks-api-user.pem');
  const userFile = path.join(dataDir, 'fireblocks-api-user.json');
  if (!existsSync(keyFile) || !existsSync(userFile)) {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    chmodSync(keyFile, 0o600);
    writeFileSync(userFile, `${JSON.stringify({ apiKey: randomUUID() })}\n`);
  }
  const { apiKey } = JSON.parse(readFileSync(userFile, 'utf8')) as { apiKey: string };
  const sim = await startFireblocksSimulator({
    assets: { [LOCAL_FIREBLOCKS_ASSET]: { rpcUrl, chainId: 1337 } },
    webhookUrl: `http://127.0.0.1:${apiPort}/webhooks/fireblocks`,
    statePath: path.join(dataDir, 'fireblocks-simulator-state.json'),
    port: await freePort(),
  });
  sim.registerApiUser(
    apiKey,
    createPublicKey(readFileSync(keyFile, 'utf8')).export({ type: 'spki', format: 'pem' }).toString(),
  );
  const webhookKeyFile = path.join(dataDir, 'fireblocks-webhook.pub');
  writeFileSync(webhookKeyFile, sim.webhookPublicKeyPem);
  const env = {
    FIREBLOCKS_API_KEY: apiKey,
    FIREBLOCKS_SECRET_KEY_PATH: keyFile,
    FIREBLOCKS_BASE_URL: sim.url,
    FIREBLOCKS_ASSET_ID_1337: LOCAL_FIREBLOCKS_ASSET,
    FIREBLOCKS_WEBHOOK_PUBLIC_KEY_PATH: webhookKeyFile,
  };
  writeFileSync(path.join(dataDir, DEV_FIREBLOCKS_FILE), `${JSON.stringify(env, null, 2)}\n`);
  return { env, url: sim.url, stop: () => sim.stop() };
}
