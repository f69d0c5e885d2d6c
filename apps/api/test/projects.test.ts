import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { english, mnemonicToAccount } from 'viem/accounts';
import { open } from '#api/crypto/secretBox.ts';
import { ApiError } from '#api/errors/ApiError.ts';
import { createProject, rotateApiKey } from '#api/projects/projects.ts';
import { WalletProviderNotConfiguredError } from '#api/wallets/custodian.ts';
import { loadWalletKeys } from '#api/wallets/fromMnemonic/walletKeys.ts';
import { createSignerProvider } from '#api/wallets/signer.ts';
import { apiKey, bearer, createHarness, type Harness } from '#api-testing/harness.ts';

describe('projects, keys and system wallets', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness();
  });
  after(() => h.close());

  it('get-project-detail answers the project with a masked key and its two dedicated wallets', async () => {
    const { project, apiKey: key } = await h.project('Acme');
    assert.match(key, /^mtn_test_[0-9A-Za-z]{44}$/);
    const res = await h.call('get-project-detail', { headers: apiKey(key) });
    assert.equal(res.status, 200);
    const { data } = res.body;
    assert.equal(data.project.id, project.id);
    assert.equal(data.project.projectName, 'Acme');
    assert.equal(data.project.apiKey, `${key.slice(0, 21)}********`);
    assert.ok(!JSON.stringify(res.body).includes(key), 'the full key is never answered again');
    assert.equal(data.mSystemWalletMainnet.networkType, 'mainnet');
    assert.equal(data.mSystemWalletTestnet.networkType, 'testnet');
    for (const wallet of [data.mSystemWalletMainnet, data.mSystemWalletTestnet]) {
      assert.equal(wallet.type, 'from-mnemonic');
      assert.equal(wallet.ownerType, 'dedicated');
      assert.match(wallet.address, /^0x[0-9a-fA-F]{40}$/);
    }
    assert.notEqual(data.mSystemWalletMainnet.address, data.mSystemWalletTestnet.address);
  });

  it('derives every wallet from the one encrypted deployment mnemonic, and signs with it', async () => {
    const { apiKey: key } = await h.project();
    const { body } = await h.call('get-project-detail', { headers: apiKey(key) });
    const { rows } = await h.db.query('SELECT w.derivation_index, w.address FROM system_wallets w WHERE w.id = $1', [
      body.data.mSystemWalletMainnet.id,
    ]);
    const [wallet] = rows;
    assert.ok(wallet);
    const account = h.keys.account(wallet.derivation_index);
    assert.equal(account.address, body.data.mSystemWalletMainnet.address);
    const signer = createSignerProvider(h.keys).signerFor({
      id: body.data.mSystemWalletMainnet.id,
      address: account.address,
      type: 'from-mnemonic',
      derivationIndex: wallet.derivation_index,
      custodyRef: null,
    });
    const signature = await signer.signMessage({ message: 'hello' });
    assert.match(signature, /^0x[0-9a-f]{130}$/);
  });

  it('gives every project wallets of its own unless told otherwise', async () => {
    const a = await createProject(h.db, h.keys, { projectName: 'D1', keyMode: 'test' });
    const b = await createProject(h.db, h.keys, { projectName: 'D2', keyMode: 'test' });
    const da = (await h.call('get-project-detail', { headers: apiKey(a.apiKey) })).body.data;
    const db = (await h.call('get-project-detail', { headers: apiKey(b.apiKey) })).body.data;
    assert.equal(da.mSystemWalletMainnet.ownerType, 'dedicated');
    assert.equal(db.mSystemWalletTestnet.ownerType, 'dedicated');
    assert.notEqual(da.mSystemWalletMainnet.address, db.mSystemWalletMainnet.address);
    assert.notEqual(da.mSystemWalletTestnet.address, db.mSystemWalletTestnet.address);
  });

  it('refuses the shared wallet without allowSharedWallet: true (400 naming the field), and writes nothing', async () => {
    const count = async () => (await h.db.query<{ n: number }>('SELECT count(*)::int AS n FROM projects')).rows[0]?.n;
    const before = await count();
    for (const allowSharedWallet of [undefined, false]) {
      await assert.rejects(
        createProject(h.db, h.keys, {
          projectName: 'Refused',
          ownerType: 'shared',
          keyMode: 'test',
          ...(allowSharedWallet === undefined ? {} : { allowSharedWallet }),
        }),
        (error: unknown) => {
          assert.ok(error instanceof ApiError);
          assert.equal(error.statusCode, 400);
          assert.equal(error.code, 'VALIDATION_FAILED');
          assert.equal(error.details?.[0]?.field, 'allowSharedWallet');
          assert.match(
            error.message,
            /allowSharedWallet must be true .*any project on the shared wallet can act as the others toward contracts that trust its address/,
          );
          return true;
        },
      );
    }
    assert.equal(await count(), before);
  });

  it('shares one wallet pair among shared-wallet projects, when allowed in so many words', async () => {
    const shared = { ownerType: 'shared', allowSharedWallet: true, keyMode: 'test' } as const;
    const a = await createProject(h.db, h.keys, { projectName: 'S1', ...shared });
    const b = await createProject(h.db, h.keys, { projectName: 'S2', ...shared });
    const da = (await h.call('get-project-detail', { headers: apiKey(a.apiKey) })).body.data;
    const db = (await h.call('get-project-detail', { headers: apiKey(b.apiKey) })).body.data;
    assert.equal(da.mSystemWalletMainnet.address, db.mSystemWalletMainnet.address);
    assert.equal(da.mSystemWalletTestnet.ownerType, 'shared');
    assert.equal(da.mSystemWalletTestnet.id, db.mSystemWalletTestnet.id);
  });

  it('refuses Fireblocks custody clearly when it is not configured', async () => {
    await assert.rejects(
      createProject(h.db, h.keys, { projectName: 'F', walletType: 'fireblocks', keyMode: 'test' }),
      (error: Error) => error instanceof WalletProviderNotConfiguredError && /FIREBLOCKS_API_KEY/.test(error.message),
    );
    const signer = createSignerProvider(h.keys);
    const fireblocksWallet = {
      id: 1,
      address: '0x0',
      type: 'fireblocks',
      derivationIndex: null,
      custodyRef: '7',
    } as const;
    assert.throws(() => signer.signerFor(fireblocksWallet), WalletProviderNotConfiguredError);
    assert.throws(() => signer.submitterFor(fireblocksWallet), /FIREBLOCKS_API_KEY/);
    const { rows } = await h.db.query("SELECT 1 FROM projects WHERE project_name = 'F'");
    assert.equal(rows.length, 0);
  });

  it('keeps only hashes of keys and an encrypted mnemonic (raw rows hold no secret)', async () => {
    const { apiKey: key } = await h.project();
    const { rows: keyRows } = await h.db.query('SELECT * FROM api_keys');
    const dump = JSON.stringify(keyRows);
    assert.ok(!dump.includes(key) && !dump.includes(key.slice(21)), 'no key or key secret in api_keys');
    const { rows } = await h.db.query<{ ciphertext: Buffer }>('SELECT ciphertext FROM deployment_secrets');
    const raw = rows[0]?.ciphertext as Buffer;
    const words = raw.toString('latin1');
    assert.ok(!english.some((word) => word.length > 5 && words.includes(` ${word} `)), 'mnemonic is not readable');
    assert.throws(
      () => open(randomBytes(32), raw, 'deployment_secrets:wallet-mnemonic'),
      'another key cannot decrypt it',
    );
  });

  it("derives each wallet at m/44'/60'/0'/0/<index> of the stored mnemonic, as viem's mnemonicToAccount does", async () => {
    const { rows } = await h.db.query<{ ciphertext: Buffer }>('SELECT ciphertext FROM deployment_secrets');
    const mnemonic = open(h.masterKey, rows[0]?.ciphertext as Buffer, 'deployment_secrets:wallet-mnemonic');
    for (const index of [0, 1, 7, 1_000, 2 ** 31 - 1]) {
      const expected = mnemonicToAccount(mnemonic, { addressIndex: index });
      const account = h.keys.account(index);
      assert.equal(account.address, expected.address, `index ${index}`);
      // The key the fast signer signs transactions with (fastSigner.ts), and the account's kind.
      assert.deepEqual(account.getHdKey().privateKey, expected.getHdKey().privateKey);
      assert.equal(account.source, 'hd');
      const message = `index ${index}`;
      assert.equal(await account.signMessage({ message }), await expected.signMessage({ message }));
    }
    // No hardened child: the path's last level is a normal index.
    for (const index of [2 ** 31, -1, 1.5]) assert.throws(() => h.keys.account(index), RangeError);
  });

  it('loads the same mnemonic again, and refuses a wrong master key', async () => {
    const again = await loadWalletKeys(h.db, h.masterKey);
    assert.equal(again.account(5).address, h.keys.account(5).address);
    await assert.rejects(loadWalletKeys(h.db, randomBytes(32)), /MASTER_KEY is not the key/);
    assert.notEqual(
      h.keys.account(5).address,
      mnemonicToAccount(`${'test '.repeat(11)}junk`, { addressIndex: 5 }).address,
    );
  });

  it('rotating a key revokes the old one at once', async () => {
    const { project, apiKey: oldKey } = await h.project();
    const newKey = await rotateApiKey(h.db, project.id, 'test');
    assert.equal((await h.call('get-project-detail', { headers: apiKey(oldKey) })).status, 401);
    assert.equal((await h.call('get-project-detail', { headers: apiKey(newKey) })).status, 200);
  });

  it('get-projects lists the member’s projects, paged, oldest first', async () => {
    const user = await h.user();
    const { setMembership } = await import('#api/projects/users.ts');
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const { project } = await h.project(`P${i}`);
      ids.push(project.id);
      await setMembership(h.db, { projectId: project.id, userId: user.id, role: 'reader' });
    }
    const token = h.token(user.id);
    const page1 = await h.call('get-projects', { headers: bearer(token), query: { perPage: '2' } });
    assert.deepEqual(
      page1.body.data.projects.map((p: { id: number }) => p.id),
      ids.slice(0, 2),
    );
    assert.deepEqual(page1.body.meta, { pageNumber: 1, perPage: 2, totalPage: 2, totalItems: 3 });
    const page2 = await h.call('get-projects', { headers: bearer(token), query: { perPage: '2', page: '2' } });
    assert.deepEqual(
      page2.body.data.projects.map((p: { id: number }) => p.id),
      ids.slice(2),
    );
    const page9 = await h.call('get-projects', { headers: bearer(token), query: { perPage: '2', page: '9' } });
    assert.deepEqual(page9.body.data.projects, []);
    assert.equal(page9.body.meta.totalItems, 3);
    for (const p of page1.body.data.projects) assert.match(p.apiKey, /^mtn_test_\w{12}\*{8}$/);
  });
});
