// Two servers on one database for bench:api: the real app, and a bare Fastify route doing the same SQL.
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '@mountain/testkit/ports.ts';
import Fastify from 'fastify';
import { buildApp } from '#api/app.ts';
import { signAccessToken } from '#api/auth/accessTokens.ts';
import { keyMatches, parseApiKey } from '#api/auth/apiKeys.ts';
import { createChains } from '#api/chain/chains.ts';
import { REPO_ROOT } from '#api/config/config.ts';
import { createDb } from '#api/db/db.ts';
import { startEmbeddedPostgres } from '#api/db/embeddedPostgres.ts';
import { migrate } from '#api/db/migrate.ts';
import { createProject } from '#api/projects/projects.ts';
import { createUser, setMembership } from '#api/projects/users.ts';
import { loadWalletKeys } from '#api/wallets/fromMnemonic/walletKeys.ts';

const dir = path.join(REPO_ROOT, '.data', `bench-${process.pid}`);
mkdirSync(dir, { recursive: true });
const pg = await startEmbeddedPostgres(path.join(dir, 'postgres'), await freePort());
await pg.ensureDatabase('bench');
const db = createDb(pg.urlFor('bench'), { max: 10 });
await migrate(db);
const keys = await loadWalletKeys(db, randomBytes(32));
const { project, apiKey } = await createProject(db, keys, { projectName: 'Bench', keyMode: 'test' });
// BENCH_AUTH=token: the app is called with a user's access token instead (signature, memberships, revocations).
const tokenSigningKey = randomBytes(32);
const user = await createUser(db, { email: 'bench@example.com' });
await setMembership(db, { projectId: project.id, userId: user.id, role: 'admin' });
const { token } = signAccessToken(tokenSigningKey, { userId: user.id, expiresInSeconds: 86_400 });

const app = buildApp({
  db,
  chains: createChains({}),
  tokenSigningKey,
  masterKey: randomBytes(32),
  bodyLimit: 65536,
  // The limiter runs, so its cost is measured, with a limit this one key never reaches.
  rateLimit: { perMinute: 1_000_000_000, burst: 1_000_000_000, authFailuresPerMinute: 600 },
});
await app.listen({ host: '127.0.0.1', port: 0 });

// The baseline: the same two queries (key lookup, project detail) with no validation, auth layer or schemas.
const bare = Fastify();
bare.get('/bare', async (request, reply) => {
  const key = String(request.headers['x-api-key']);
  const parsed = parseApiKey(key);
  const { rows } = await db.query(
    'SELECT id, project_id, secret_hash FROM api_keys WHERE lookup_id = $1 AND revoked_at IS NULL',
    [parsed?.lookupId],
  );
  if (!rows[0] || !keyMatches(key, rows[0].secret_hash)) return reply.code(401).send({});
  const detail = await db.query(
    `SELECT json_build_object('id', p.id, 'projectName', p.project_name, 'apiKey', coalesce(k.masked, '')) AS project,
            json_build_object('id', wm.id, 'address', wm.address, 'type', wm.type, 'networkType', wm.network_type, 'ownerType', wm.owner_type) AS mainnet,
            json_build_object('id', wt.id, 'address', wt.address, 'type', wt.type, 'networkType', wt.network_type, 'ownerType', wt.owner_type) AS testnet
       FROM projects p LEFT JOIN api_keys k ON k.project_id = p.id AND k.revoked_at IS NULL
       JOIN system_wallets wm ON wm.id = p.wallet_mainnet_id JOIN system_wallets wt ON wt.id = p.wallet_testnet_id
      WHERE p.id = $1`,
    [rows[0].project_id],
  );
  const row = detail.rows[0] as { project: unknown; mainnet: unknown; testnet: unknown };
  return { data: { project: row.project, mSystemWalletMainnet: row.mainnet, mSystemWalletTestnet: row.testnet } };
});
await bare.listen({ host: '127.0.0.1', port: 0 });

const address = (server: typeof app) => {
  const a = server.server.address();
  return typeof a === 'object' && a ? `http://127.0.0.1:${a.port}` : '';
};
process.send?.({
  apiKey,
  token,
  app: `${address(app)}/public-api/v3/project/get-project-detail`,
  bare: `${address(bare)}/bare`,
});

process.on('message', async (message) => {
  if (message !== 'stop') return;
  await app.close();
  await bare.close();
  await db.close();
  await pg.stop();
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
});
