import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Compile } from 'typebox/compile';
import { REPO_ROOT } from '#api/config/config.ts';
import { createProject } from '#api/projects/projects.ts';
import { WalletProviderNotConfiguredError } from '#api/wallets/custodian.ts';
import { CUSTODIANS, custodianOf, WALLET_TYPES, type WalletType } from '#api/wallets/custodians.ts';
import { createSignerProvider, requireConfigured, type SystemWalletRecord } from '#api/wallets/signer.ts';
import { createHarness, type Harness } from '#api-testing/harness.ts';
import { adminCli } from '../helpers/adminCli.ts';

const SOURCE = path.join(REPO_ROOT, 'apps/api/src');
const WALLETS = path.join(SOURCE, 'wallets');

/**
 * Where code outside `wallets/` names a custodian: a wallet type as a string literal (`'fireblocks'`, "aws-kms",
 * `from-mnemonic` in backquotes, or inside a SQL text). Such code branches on a custodian's name, which only the
 * registry's entries may do. None is allowed: a route's example takes DEFAULT_WALLET_TYPE, a schema's enum the
 * registry's keys.
 */
function namesCustodian(text: string): string[] {
  const names = WALLET_TYPES.map((type) => type.replace(/[-]/g, '\\-')).join('|');
  return [...text.matchAll(new RegExp(`(['"\`])(${names})\\1`, 'g'))].map((match) => match[0]);
}

/** The custody columns of `system_wallets` (a custodian's `refColumn`, for a custodian with a reference there). */
const CUSTODY_COLUMNS = WALLET_TYPES.filter((type) => custodianOf(type).view !== null).map(
  (type) => custodianOf(type).refColumn,
);

/** Where a text names a custody column (only the registry's entries and the migrations may). */
function namesCustodyColumn(text: string): string[] {
  return [...text.matchAll(new RegExp(`\\b(${CUSTODY_COLUMNS.join('|')})\\b`, 'g'))].map((match) => match[0]);
}

/** The modules of a custodian's folder that its entry alone reads: its settings, development simulator, client. */
const ENTRY_MODULES = /^(settings|devSimulator|\w+Custody)\.ts$/;

/**
 * What only a custodian's folder and the registry may name: the folder's paths of its settings, simulator and
 * client modules (`fireblocks/settings.ts`), and the functions they export (its settings parser, client factory).
 */
function entryNames(folder: string): string[] {
  const dir = path.join(WALLETS, folder);
  return readdirSync(dir)
    .filter((name) => ENTRY_MODULES.test(name))
    .flatMap((name) => [
      `${folder}/${name}`,
      ...[...readFileSync(path.join(dir, name), 'utf8').matchAll(/export (?:async )?function (\w+)/g)].map(
        (match) => match[1] as string,
      ),
    ]);
}

/** Where a text names one of `names` (a whole word, or a module path); `import type` lines are not read. */
function mentions(text: string, names: string[]): string[] {
  const code = text
    .split('\n')
    .filter((line) => !/^import type /.test(line))
    .join('\n');
  return names.filter((name) => new RegExp(`(?<!\\w)${name.replace(/[./]/g, '\\$&')}\\b`).test(code));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return sourceFiles(file);
    return /\.tsx?$/.test(name) ? [file] : [];
  });
}

describe('the custodian registry', () => {
  it('no code outside apps/api/src/wallets/ compares a wallet type with a custodian name', () => {
    assert.deepEqual(namesCustodian(`if (wallet.type === 'fireblocks') return;`), [`'fireblocks'`], 'the rule bites');
    assert.deepEqual(namesCustodian("`SELECT id FROM system_wallets WHERE type = 'aws-kms'`"), [`'aws-kms'`]);
    assert.deepEqual(namesCustodian(`const type = "from-mnemonic";`), [`"from-mnemonic"`]);
    assert.deepEqual(namesCustodian(`remote.fireblocks?.submitter; // a Fireblocks vault`), []);
    const files = sourceFiles(SOURCE).filter((file) => !file.startsWith(`${WALLETS}${path.sep}`));
    assert.ok(files.length > 100, `${files.length} source files outside wallets/`);
    const found = files.flatMap((file) =>
      namesCustodian(readFileSync(file, 'utf8')).map((name) => `${path.relative(SOURCE, file)}: ${name}`),
    );
    assert.deepEqual(found, [], 'ask the registry (wallets/custodians.ts) instead');
  });

  it('no code outside apps/api/src/wallets/ names a custody column (the migrations excepted)', () => {
    assert.deepEqual(CUSTODY_COLUMNS.length, WALLET_TYPES.length - 1, 'every custodian but from-mnemonic');
    assert.deepEqual(namesCustodyColumn(`coalesce(${CUSTODY_COLUMNS.join(', ')})`), CUSTODY_COLUMNS, 'the rule bites');
    assert.deepEqual(namesCustodyColumn(`w.${CUSTODY_COLUMNS[0]} IS NOT NULL`), [CUSTODY_COLUMNS[0]]);
    assert.deepEqual(namesCustodyColumn(`${custodianOf(WALLET_TYPES[1] as WalletType).refColumn}s`), []);
    const files = sourceFiles(SOURCE).filter(
      (file) => !file.startsWith(`${WALLETS}${path.sep}`) && !file.split(path.sep).includes('migrations'),
    );
    const found = files.flatMap((file) =>
      namesCustodyColumn(readFileSync(file, 'utf8')).map((name) => `${path.relative(SOURCE, file)}: ${name}`),
    );
    assert.deepEqual(found, [], 'ask the registry (custodyRefSql, listingRefsSql, custodyViewSql) instead');
  });

  it('a custodian is its folder and one line of the registry: no other code names its settings or client', () => {
    const folders = readdirSync(WALLETS).filter((name) => statSync(path.join(WALLETS, name)).isDirectory());
    assert.equal(folders.length, WALLET_TYPES.length, 'one folder per wallet type');
    const registry = readFileSync(path.join(WALLETS, 'custodians.ts'), 'utf8');
    for (const folder of folders) {
      assert.ok(registry.includes(`from './${folder}/custodian.ts'`), `${folder}: imported by the registry`);
    }
    // The rule bites: a configuration that reads a custodian's settings itself, a caller that makes its client.
    const names = folders.flatMap(entryNames);
    const [parser] = names.filter((name) => /^parse\w+Settings$/.test(name));
    assert.ok(parser, names.join(', '));
    const settingsPath = names.find((name) => name.endsWith('/settings.ts')) as string;
    assert.deepEqual(
      mentions(`import { ${parser} } from '#api/wallets/${settingsPath}';\nconst s = ${parser}(env);`, names),
      [settingsPath, parser].sort((a, b) => names.indexOf(a) - names.indexOf(b)),
    );
    assert.deepEqual(mentions(`import type { X } from './${settingsPath}';`, names), [], 'types may be named');
    assert.deepEqual(mentions(`const ${parser}Like = 1; // my${parser}`, names), []);
    const files = sourceFiles(SOURCE).filter((file) => {
      const inside = path.relative(WALLETS, file).split(path.sep);
      return !(inside.length > 1 && inside[0] !== '..') && file !== path.join(WALLETS, 'custodians.ts');
    });
    assert.ok(files.length > 100, `${files.length} source files outside the custodians' folders`);
    const found = files.flatMap((file) => {
      const own = path.relative(WALLETS, file).split(path.sep)[0];
      const others = folders.filter((folder) => folder !== own).flatMap(entryNames);
      return mentions(readFileSync(file, 'utf8'), others).map((name) => `${path.relative(SOURCE, file)}: ${name}`);
    });
    assert.deepEqual(found, [], "a custodian's settings and client are read through its registry entry");
    // Nor does the interface name a custodian with credentials: the deployment's settings and clients are derived
    // from the registry's entries (the mnemonic's keys, which every deployment has, are the interface's own).
    const contract = readFileSync(path.join(WALLETS, 'custodian.ts'), 'utf8');
    assert.deepEqual(
      folders.filter((folder) => folder !== 'fromMnemonic' && contract.includes(`./${folder}/`)),
      [],
    );
  });

  it('has one entry per wallet type, named by its key, and the from-mnemonic default first', () => {
    assert.deepEqual(WALLET_TYPES, Object.keys(CUSTODIANS));
    assert.equal(WALLET_TYPES[0], 'from-mnemonic');
    for (const type of WALLET_TYPES) assert.equal(custodianOf(type).type, type);
  });

  describe('each entry gives every capability', () => {
    let h: Harness;
    const dataDir = mkdtempSync(path.join(tmpdir(), 'custodians-'));
    // The CLI of a development install, with no custodian's credentials (and no simulator left by `npm start`).
    const admin = adminCli(() => ({
      DATABASE_URL: h.databaseUrl,
      MASTER_KEY: h.masterKey.toString('base64'),
      TOKEN_SIGNING_KEY: h.tokenSigningKey.toString('base64'),
      DATA_DIR: dataDir,
    }));
    before(async () => {
      h = await createHarness();
    });
    after(async () => {
      await h.close();
      rmSync(dataDir, { recursive: true, force: true });
    });

    for (const type of WALLET_TYPES) {
      const custodian = custodianOf(type);

      it(`${type}: its wallets' column exists, and its view of a wallet row answers as its schema says`, async () => {
        const { rows: columns } = await h.db.query(
          `SELECT 1 FROM information_schema.columns WHERE table_name = 'system_wallets' AND column_name = $1`,
          [custodian.refColumn],
        );
        assert.equal(columns.length, 1, `system_wallets.${custodian.refColumn}`);
        if (!custodian.view) return;
        const ref = 'arn:aws:kms:eu-west-1:111122223333:key/0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0';
        const { rows } = await h.db.query<{ view: Record<string, unknown> }>(
          `SELECT ${custodian.view.sql('w')} AS view FROM (SELECT $1::text AS ${custodian.refColumn}) w`,
          [ref],
        );
        const view = rows[0]?.view;
        assert.equal(view?.provider, type);
        assert.ok(Object.values(view ?? {}).includes(ref), 'the view shows the wallet at its custodian');
        assert.ok(Compile(custodian.view.schema).Check(view), JSON.stringify(view));
      });

      it(`${type}: sends through exactly one of a signer and a submitter`, () => {
        const sends = custodian.sends;
        assert.notEqual('signer' in sends, 'submitter' in sends);
        const signers = createSignerProvider(h.keys);
        const wallet: SystemWalletRecord = { id: 1, address: '0x0', type, derivationIndex: null, custodyRef: 'ref' };
        if ('submitter' in sends) {
          assert.throws(() => signers.signerFor(wallet), WalletProviderNotConfiguredError, 'a submitter has no signer');
        } else if (!custodian.configuration) {
          const account = h.keys.account(7);
          const own = { ...wallet, address: account.address, derivationIndex: 7 };
          assert.equal(signers.signerFor(own).address, account.address);
          assert.equal(signers.submitterFor(own), undefined);
        }
      });

      if (custodian.undo) {
        it(`${type}: a failure that is not its refusal keeps the reservation (a run again resumes)`, () => {
          assert.deepEqual(custodian.undo?.(new TypeError('not the custodian')).refused, false);
        });
      } else {
        it(`${type}: makes a project's wallets in the project's own transaction (nothing reserved)`, async () => {
          const { project } = await createProject(h.db, h.keys, { projectName: `Own ${type}`, keyMode: 'test' });
          const { rows } = await h.db.query(
            `SELECT w.type, w.${custodian.refColumn} AS ref FROM projects p
               JOIN system_wallets w ON w.id IN (p.wallet_mainnet_id, p.wallet_testnet_id) WHERE p.id = $1`,
            [project.id],
          );
          assert.deepEqual(
            rows.map((row) => row.type),
            [type, type],
          );
          assert.ok(rows.every((row) => row.ref !== null));
          const { rows: reserved } = await h.db.query('SELECT 1 FROM custody_provisionings');
          assert.equal(reserved.length, 0);
        });
      }

      const configuration = custodian.configuration;
      if (!configuration) continue;
      it(`${type}: without its credentials, says so naming the variable (the CLI's usage error, exit 2)`, async () => {
        assert.throws(() => requireConfigured(custodian, {}), WalletProviderNotConfiguredError);
        assert.match(configuration.notConfigured, /set [A-Z][A-Z0-9_]+/);
        const sameError = (error: unknown) =>
          error instanceof WalletProviderNotConfiguredError && error.message === configuration.notConfigured;
        const projectName = `Unconfigured ${type}`;
        await assert.rejects(
          createProject(h.db, h.keys, { projectName, walletType: type, keyMode: 'test' }),
          sameError,
        );
        const { rows } = await h.db.query(
          'SELECT (SELECT count(*)::int FROM projects WHERE project_name = $1) + (SELECT count(*)::int FROM custody_provisionings) AS n',
          [projectName],
        );
        assert.equal(rows[0]?.n, 0, 'nothing is reserved or written');
        const signers = createSignerProvider(h.keys);
        const wallet: SystemWalletRecord = { id: 1, address: '0x0', type, derivationIndex: null, custodyRef: 'ref' };
        assert.throws(
          () => ('submitter' in custodian.sends ? signers.submitterFor(wallet) : signers.signerFor(wallet)),
          sameError,
        );
        const { code, err } = admin('create-project', '--name', projectName, '--wallet-type', type);
        assert.equal(code, 2, err);
        assert.ok(err.includes(configuration.notConfigured), err);
      });
    }
  });
});
