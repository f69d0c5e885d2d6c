// Secret files stay out of git and out of the images: .gitignore and .dockerignore leave out .env, mountain.env,
// secrets/ and DATA_DIR's default (.data), and compose.yaml hands the keys over as secrets files, never as
// environment variables. The build context is computed here as Docker computes it from .dockerignore, over a
// temporary copy that holds such files beside the sources.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import yaml from 'js-yaml';

const ROOT = path.resolve(import.meta.dirname, '..');

/** Files an operator creates in the repository's root (apps/docs/docs/operations/deploying.md, "Compose"), and the default DATA_DIR. */
const SECRET_FILES = [
  '.env',
  '.env.production',
  'mountain.env',
  'secrets/master_key',
  'secrets/token_signing_key',
  '.data/secrets.json',
  '.data/postgres/PG_VERSION',
];
/** Files the build needs: they must stay in the context. */
const SOURCES = ['package.json', 'package-lock.json', 'apps/api/src/main.ts', 'apps/api/migrations/001_foundation.sql'];

/**
 * Docker's rule for .dockerignore (github.com/moby/patternmatcher): each line a pattern relative to the context's
 * root, `**` any number of directories, `*` and `?` within one name, `!` an exception; a file is left out when its
 * path or one of its parent directories matches the last pattern that matches it.
 */
function buildContext(dir: string): string[] {
  const patterns = readFileSync(path.join(dir, '.dockerignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const exception = line.startsWith('!');
      const pattern = path.posix.normalize((exception ? line.slice(1) : line).replace(/^\/+/, ''));
      const source = pattern
        .split(/(\*\*\/?|\*|\?)/)
        .map((part) =>
          part === '**/' || part === '**'
            ? '(.*/)?'
            : part === '*'
              ? '[^/]*'
              : part === '?'
                ? '[^/]'
                : part.replace(/[.+^${}()|[\]\\]/g, '\\$&'),
        )
        .join('');
      return { exception, regex: new RegExp(`^${source}$`) };
    });
  const excluded = (file: string) => {
    const parts = file.split('/');
    const prefixes = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
    let out = false;
    for (const { exception, regex } of patterns) {
      if (prefixes.some((prefix) => regex.test(prefix))) out = !exception;
    }
    return out;
  };
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .filter((file) => !excluded(file))
    .sort();
}

describe('secret files', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'mountain-secrets-'));
    for (const file of ['.gitignore', '.dockerignore', ...SOURCES]) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), readFileSync(path.join(ROOT, file)));
    }
    for (const file of SECRET_FILES) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), 'MASTER_KEY=not-a-real-key\n');
    }
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('are in no image: the build context holds the sources and none of them', () => {
    const context = buildContext(dir);
    assert.deepEqual(
      SECRET_FILES.filter((f) => context.includes(f)),
      [],
    );
    for (const source of SOURCES) assert.ok(context.includes(source), `${source} is in the context`);
  });

  it('are ignored by git, and the sources are not', () => {
    execFileSync('git', ['init', '-q'], { cwd: dir });
    // `git check-ignore` exits 0 for an ignored path, 1 for one git would add.
    const status = (file: string) =>
      spawnSync('git', ['check-ignore', '-q', file], { cwd: dir }).status === 0 ? 'ignored' : 'kept';
    assert.deepEqual(
      SECRET_FILES.filter((f) => status(f) !== 'ignored'),
      [],
    );
    assert.deepEqual(
      SOURCES.filter((f) => status(f) !== 'kept'),
      [],
    );
  });

  it('compose.yaml passes the keys as secrets files, in no environment variable', () => {
    const compose = yaml.load(readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8')) as {
      services: Record<string, { environment?: Record<string, string>; secrets?: string[] }>;
      secrets: Record<string, { file: string }>;
    };
    for (const role of ['api', 'worker']) {
      const service = compose.services[role];
      const environment = service?.environment ?? {};
      for (const name of ['MASTER_KEY', 'TOKEN_SIGNING_KEY', 'TOKEN_SIGNING_KEYS']) {
        assert.equal(environment[name], undefined, `${role}: ${name} is not in the environment`);
      }
      assert.deepEqual(service?.secrets, ['master_key', 'token_signing_key']);
      assert.equal(environment.MASTER_KEY_FILE, '/run/secrets/master_key');
      assert.equal(environment.TOKEN_SIGNING_KEY_FILE, '/run/secrets/token_signing_key');
    }
    assert.deepEqual(compose.secrets, {
      master_key: { file: './secrets/master_key' },
      token_signing_key: { file: './secrets/token_signing_key' },
    });
  });
});
