// The operations guide's commands that can run here do: every SQL block of its pages on a migrated platform
// database (in a transaction rolled back), and the key it says to generate is one the configuration takes.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig, REPO_ROOT } from '#api/config/config.ts';
import { createHarness, type Harness } from '#api-testing/harness.ts';

const GUIDE = path.join(REPO_ROOT, 'apps/docs/docs/operations');

/** The fenced blocks of the guide's pages in `lang`, with where they are. */
function blocks(lang: string): { page: string; code: string }[] {
  return readdirSync(GUIDE)
    .filter((name) => /\.mdx?$/.test(name))
    .flatMap((page) =>
      [...readFileSync(path.join(GUIDE, page), 'utf8').matchAll(/^```(\w+)[^\n]*\n([\s\S]*?)^```$/gm)]
        .filter((m) => m[1] === lang)
        .map((m) => ({ page, code: m[2] as string })),
    );
}

describe('the operations guide', () => {
  let h: Harness;
  before(async () => {
    h = await createHarness();
  });
  after(() => h?.close());

  it('every SQL statement of its pages runs on the platform database', async () => {
    const statements = blocks('sql').flatMap(({ page, code }) =>
      code
        .split(/;\s*$/m)
        .map((s) => s.trim())
        .filter(Boolean)
        .map((sql) => ({ page, sql })),
    );
    assert.ok(statements.length >= 5, `${statements.length} statements`);
    const client = await h.db.pool.connect();
    try {
      for (const { page, sql } of statements) {
        await client.query('BEGIN');
        try {
          await client.query(sql);
        } catch (error) {
          assert.fail(`${page}: ${sql}\n${(error as Error).message}`);
        } finally {
          await client.query('ROLLBACK');
        }
      }
      const { rows } = await client.query('SELECT count(*)::int AS n FROM schema_migrations');
      assert.ok(rows[0].n > 10, 'the database the statements ran on is migrated');
    } finally {
      client.release();
    }
  });

  it('the key command it gives makes a key the configuration takes as MASTER_KEY and TOKEN_SIGNING_KEY', () => {
    const command = blocks('bash')
      .flatMap(({ code }) => code.split('\n'))
      .find((line) => line.startsWith('node -e') && line.includes('randomBytes(32)'));
    assert.ok(command, 'the guide gives a command that generates a key');
    const key = () => execFileSync('bash', ['-c', command], { encoding: 'utf8' }).trim();
    const [master, signing] = [key(), key()];
    assert.equal(Buffer.from(master, 'base64').length, 32);
    assert.notEqual(master, signing);
    const config = loadConfig({ NODE_ENV: 'production', MASTER_KEY: master, TOKEN_SIGNING_KEY: signing });
    assert.equal(config.masterKey.current.key.toString('base64'), master);
  });
});
