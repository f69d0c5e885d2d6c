import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { adminCliBeside } from '../helpers/adminCli.ts';
import { type FireblocksPlatform, LOCAL_ASSET, startFireblocksPlatform } from './fireblocksFixture.ts';

describe('mountain-admin with Fireblocks configured', () => {
  let f: FireblocksPlatform;
  before(async () => {
    f = await startFireblocksPlatform();
  });
  after(async () => {
    await f?.stop();
  });

  const admin = adminCliBeside(
    () => f.h,
    () => f.anvil.url,
    () => ({
      FIREBLOCKS_API_KEY: f.settings.apiKey,
      FIREBLOCKS_SECRET_KEY: f.settings.secretKey,
      FIREBLOCKS_BASE_URL: f.settings.baseUrl,
      FIREBLOCKS_ASSET_ID_1337: LOCAL_ASSET,
      DEPLOYMENT_NAME: 'cli',
    }),
  );

  it('create-project --wallet-type fireblocks makes the vault account; list-projects shows its id', async () => {
    const created = await admin('create-project', '--name', 'Vaulted', '--wallet-type', 'fireblocks', '--json');
    assert.equal(created.code, 0, created.err);
    const { project } = JSON.parse(created.out);
    const vault = f.sim.vaultAccounts().find((v) => v.name === `mountain-cli-project-${project.id}`);
    assert.ok(vault, JSON.stringify(f.sim.vaultAccounts()));
    const listed = await admin('list-projects', '--json');
    const entry = JSON.parse(listed.out).projects.find((p: { id: number }) => p.id === project.id);
    assert.deepEqual(
      { type: entry.walletTestnet.type, vaultAccountId: entry.walletTestnet.vaultAccountId },
      { type: 'fireblocks', vaultAccountId: vault.id },
    );
    const table = await admin('list-projects');
    assert.match(table.out, new RegExp(`^${project.id} +Vaulted .* fireblocks \\(vault ${vault.id}\\) `, 'm'));
  });

  it('a refusal from Fireblocks fails the command with Fireblocks’ message (exit 1), and makes no project', async () => {
    f.sim.faults.set({ serverError: { count: 100, route: 'POST /vault/accounts' } });
    try {
      const failed = await admin('create-project', '--name', 'Unlucky', '--wallet-type', 'fireblocks');
      assert.equal(failed.code, 1);
      assert.match(failed.err, /^error: The project was not created: Fireblocks answered 500/m);
      const { rows } = await f.h.db.query("SELECT 1 FROM projects WHERE project_name = 'Unlucky'");
      assert.equal(rows.length, 0);
    } finally {
      f.sim.faults.clear();
    }
  });
});
