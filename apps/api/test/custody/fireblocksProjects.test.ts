import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { CustodyProvisioningError, createProject } from '#api/projects/projects.ts';
import { createFireblocksCustody } from '#api/wallets/fireblocks/fireblocksCustody.ts';
import { type FireblocksPlatform, startFireblocksPlatform } from './fireblocksFixture.ts';

describe('Fireblocks projects: vault accounts made once, whatever fails on the way', () => {
  let f: FireblocksPlatform;
  before(async () => {
    f = await startFireblocksPlatform();
  });
  after(async () => {
    await f?.stop();
  });
  beforeEach(() => f.sim.faults.clear());

  const custodians = () => f.h.deps.custodians ?? {};
  const create = (projectName: string, extra: object = {}, remote = custodians()) =>
    createProject(f.h.db, f.h.keys, { projectName, keyMode: 'test', walletType: 'fireblocks', ...extra }, remote);
  const vaultsNamed = (name: string) => f.sim.vaultAccounts().filter((v) => v.name === name);
  const projectsNamed = async (name: string) =>
    (await f.h.db.query('SELECT id FROM projects WHERE project_name = $1', [name])).rows;

  it('a create whose answer was lost is looked up by name: one vault account', async () => {
    f.sim.faults.set({ lostResponse: { count: 1, route: 'POST /vault/accounts' } });
    const { project } = await create('Lost answer');
    assert.equal(vaultsNamed(`mountain-test-project-${project.id}`).length, 1);
    assert.equal((f.sim.requests['POST /vault/accounts'] ?? 0) >= 1, true);
  });

  it('a step that keeps failing leaves no project; run again, it resumes with the same id and the same vault', async () => {
    f.sim.faults.set({ serverError: { count: 100, route: 'POST /vault/accounts/{vaultAccountId}/{assetId}' } });
    await assert.rejects(create('Resumed'), (error: Error) => {
      assert.ok(error instanceof CustodyProvisioningError);
      assert.match(error.message, /Fireblocks answered 500/);
      assert.match(error.message, /run the same command again/);
      return true;
    });
    assert.equal((await projectsNamed('Resumed')).length, 0, 'no half-made project');
    const { rows: reserved } = await f.h.db.query(
      'SELECT project_id FROM custody_provisionings WHERE project_name = $1',
      ['Resumed'],
    );
    assert.equal(reserved.length, 1);
    f.sim.faults.clear();
    const { project } = await create('Resumed');
    assert.equal(project.id, reserved[0]?.project_id);
    assert.equal(vaultsNamed(`mountain-test-project-${project.id}`).length, 1, 'the vault made the first time');
    const { rows: left } = await f.h.db.query('SELECT 1 FROM custody_provisionings');
    assert.equal(left.length, 0);
  });

  it('a refusal (an API key Fireblocks does not know: 401) fails with Fireblocks’ message and leaves nothing', async () => {
    const stranger = createFireblocksCustody({ ...f.settings, apiKey: 'not-a-registered-key' }, [1337]);
    const before = f.sim.vaultAccounts().length;
    await assert.rejects(create('Refused', {}, { fireblocks: stranger }), (error: Error) => {
      assert.ok(error instanceof CustodyProvisioningError);
      assert.match(error.message, /Fireblocks answered 401 \(code -?\d+\)/);
      assert.doesNotMatch(error.message, /run the same command again/);
      return true;
    });
    assert.equal((await projectsNamed('Refused')).length, 0);
    const { rows } = await f.h.db.query("SELECT 1 FROM custody_provisionings WHERE project_name = 'Refused'");
    assert.equal(rows.length, 0);
    assert.equal(f.sim.vaultAccounts().length, before);
  });

  it('shared Fireblocks wallets use one shared vault account, made once', async () => {
    const shared = { ownerType: 'shared', allowSharedWallet: true };
    const a = await create('Shared A', shared);
    const b = await create('Shared B', shared);
    assert.equal(vaultsNamed('mountain-test-shared').length, 1);
    const { rows } = await f.h.db.query(
      `SELECT DISTINCT w.id, w.fireblocks_vault_id FROM projects p JOIN system_wallets w ON w.id = p.wallet_testnet_id
        WHERE p.id = ANY($1)`,
      [[a.project.id, b.project.id]],
    );
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.fireblocks_vault_id, vaultsNamed('mountain-test-shared')[0]?.id);
  });

  it('with no RPC endpoint (the admin CLI), a vault gets the assets the variables name, not the defaults', async () => {
    // A workspace without ETH (a testnet one, or the simulator): FIREBLOCKS_ASSET_ID_1337 is what the operator chose.
    const settings = { ...f.settings, assetIds: { 1: 'ETH', 1337: 'ETH_LOCAL' }, assetIdsSet: [1337] as const };
    const { project } = await create('No RPC', {}, { fireblocks: createFireblocksCustody(settings, []) });
    assert.deepEqual(vaultsNamed(`mountain-test-project-${project.id}`)[0]?.assets, ['ETH_LOCAL']);
  });

  it('status look-ups take at most half of FIREBLOCKS_MAX_RPS: a create is not queued behind a backlog of them', async () => {
    const { api } = createFireblocksCustody({ ...f.settings, maxRps: 20 }, []);
    const { id } = await api.write((sdk) =>
      sdk.vaults.createVaultAccount({ createVaultAccountRequest: { name: 'Paced' } }),
    );
    const looked = () => f.sim.requests['GET /vault/accounts/{vaultAccountId}'] ?? 0;
    const before = looked();
    // 20 look-ups take 2 s at 10/s; the create issued after them goes out at once.
    const reads = Array.from({ length: 20 }, () =>
      api.read((sdk) => sdk.vaults.getVaultAccount({ vaultAccountId: String(id) })),
    );
    await api.write((sdk) => sdk.vaults.createVaultAccount({ createVaultAccountRequest: { name: 'Paced 2' } }));
    const readsBeforeCreate = looked() - before;
    await Promise.all(reads);
    assert.ok(readsBeforeCreate <= 8, `${readsBeforeCreate} of 20 look-ups went before the create`);
    assert.equal(looked() - before, 20);
  });
});
