// Imports run one way: apps → packages, never the reverse; one workspace reaches another by its package name
// (and only through what that package exports), never by a relative path; only tests import a test/ folder, and
// only their own workspace's; production sources import no test code (test/, testing/ or @mountain/testkit).
// Every import of every source file is resolved here, the way Node resolves it, and checked against those rules.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from '@mountain/testkit/repoRoot.ts';
import ts from 'typescript';

const SKIPPED = new Set(['node_modules', 'build', 'dist', '.docusaurus', '.data', '.samples']);
const SOURCE = /\.(ts|tsx|mts|js|mjs)$/;

interface Workspace {
  name: string;
  /** Relative to the repository root: `apps/api`. */
  dir: string;
  manifest: { exports?: Record<string, unknown>; imports?: Record<string, string> };
}

const workspaces: Workspace[] = (
  JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).workspaces as string[]
).map((dir) => {
  const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, dir, 'package.json'), 'utf8'));
  return { name: manifest.name, dir, manifest };
});

const workspaceOf = (file: string) => workspaces.find((w) => file.startsWith(`${w.dir}/`));

/** `key` with one `*` matched against `specifier`, as package.json `exports` and `imports` patterns are. */
function matchPattern(map: Record<string, unknown>, specifier: string): string | undefined {
  const target = (value: unknown) =>
    typeof value === 'string' ? value : ((value as Record<string, string> | undefined)?.default ?? undefined);
  if (specifier in map) return target(map[specifier]);
  for (const [key, value] of Object.entries(map)) {
    const star = key.indexOf('*');
    if (star < 0) continue;
    const [before, after] = [key.slice(0, star), key.slice(star + 1)];
    if (specifier.startsWith(before) && specifier.endsWith(after) && specifier.length >= key.length - 1) {
      return target(value)?.replace('*', specifier.slice(before.length, specifier.length - after.length));
    }
  }
  return undefined;
}

/** The repository-relative file an import lands on, or undefined when it leaves the repository (npm, node:). */
function resolveImport(importer: string, specifier: string): string | undefined {
  if (specifier.startsWith('.')) return path.posix.normalize(path.posix.join(path.posix.dirname(importer), specifier));
  if (specifier.startsWith('#')) {
    const own = workspaceOf(importer);
    const target = own && matchPattern(own.manifest.imports ?? {}, specifier);
    return target ? path.posix.join(own.dir, target) : undefined;
  }
  const workspace = workspaces.find((w) => specifier === w.name || specifier.startsWith(`${w.name}/`));
  if (!workspace) return undefined;
  const subpath = `.${specifier.slice(workspace.name.length)}`;
  const target = matchPattern(workspace.manifest.exports ?? {}, subpath);
  assert.ok(target, `${importer}: ${specifier} is not exported by ${workspace.name}`);
  return path.posix.join(workspace.dir, target);
}

/** Tests and test helpers: `*.test.ts`, `testing*.ts` beside a library's sources, and the test folders. */
function isTestCode(file: string): boolean {
  const workspace = workspaceOf(file);
  const inFolder = (folder: string) => workspace !== undefined && file.startsWith(`${workspace.dir}/${folder}/`);
  return /\.test\.[mc]?[jt]sx?$|\/testing[^/]*\.[jt]sx?$/.test(file) || inFolder('test') || inFolder('testing');
}

/** What is wrong with `importer` importing `target` (both repository-relative), if anything. */
function violation(importer: string, specifier: string, target: string): string | undefined {
  const from = workspaceOf(importer);
  const to = workspaceOf(target);
  if (from?.dir.startsWith('packages/') && target.startsWith('apps/')) return 'a library imports an app';
  if (from && to && from !== to && specifier.startsWith('.'))
    return `a relative path into another workspace (import ${to.name} by its package name)`;
  const targetInTest = to !== undefined && target.startsWith(`${to.dir}/test/`);
  if (targetInTest && from !== to) return "another workspace's test folder";
  if (targetInTest && !(from && importer.startsWith(`${from.dir}/test/`)))
    return 'a test folder, from outside the tests';
  const production =
    from !== undefined &&
    from.name !== '@mountain/testkit' &&
    importer.startsWith(`${from.dir}/src/`) &&
    !isTestCode(importer);
  if (production && (to?.name === '@mountain/testkit' || isTestCode(target)))
    return 'test code, from production sources';
  return undefined;
}

function sourceFiles(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(REPO_ROOT, dir), { withFileTypes: true })) {
      if (SKIPPED.has(entry.name)) continue;
      const relative = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(relative);
      else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) found.push(relative);
    }
  };
  for (const dir of ['apps', 'packages', 'scripts']) walk(dir);
  return found.sort();
}

describe('imports run one way', () => {
  it('no source file imports against the direction of the layers', () => {
    const problems: string[] = [];
    let checked = 0;
    for (const file of sourceFiles()) {
      const { importedFiles } = ts.preProcessFile(readFileSync(path.join(REPO_ROOT, file), 'utf8'), true, true);
      for (const { fileName: specifier } of importedFiles) {
        const target = resolveImport(file, specifier);
        if (target === undefined) continue;
        checked++;
        // The docs site's own modules are resolved by its bundler, extensions left out.
        const exists = ['', '.ts', '.tsx', '.js'].some((ext) => existsSync(path.join(REPO_ROOT, target + ext)));
        if (!exists) problems.push(`${file}: ${specifier} does not exist`);
        const wrong = violation(file, specifier, target);
        if (wrong) problems.push(`${file}: ${specifier} → ${target}: ${wrong}`);
      }
    }
    assert.ok(checked > 300, `only ${checked} imports inside the repository were found`);
    assert.deepEqual(problems, []);
  });

  it('the rules catch each wrong direction', () => {
    const wrong: [string, string][] = [
      ['packages/client/src/live.test.ts', '../../../apps/api/testing/harness.ts'],
      ['packages/client/src/build.test.ts', '../../../apps/docs/test/helpers/page.ts'],
      ['apps/docs/test/samples.test.ts', '../../api/testing/harness.ts'],
      ['apps/api/bench/events.ts', '../test/helpers/authMatrix.ts'],
      ['apps/api/scripts/lib/cluster.ts', '../../test/helpers/workerProcess.ts'],
      ['apps/api/src/main.ts', '@mountain/testkit/ports.ts'],
      ['apps/api/src/main.ts', '#api-testing/harness.ts'],
      ['packages/webhooks/src/sign.ts', './testing.ts'],
    ];
    for (const [importer, specifier] of wrong) {
      const target = resolveImport(importer, specifier) as string;
      assert.ok(violation(importer, specifier, target), `${importer} → ${specifier} should be refused`);
    }
    const right: [string, string][] = [
      ['apps/api/test/client/errors.test.ts', '@mountain/public-api-client'],
      ['apps/api/test/auth.test.ts', './helpers/authMatrix.ts'],
      ['apps/api/scripts/lib/fuzz/environment.ts', '#api-testing/harness.ts'],
      ['apps/docs/test/samples.test.ts', '@mountain/api/testing'],
      ['packages/client/src/build.test.ts', '@mountain/testkit/browser.ts'],
      ['scripts/start.ts', '../apps/api/src/config/config.ts'],
    ];
    for (const [importer, specifier] of right) {
      const target = resolveImport(importer, specifier) as string;
      assert.equal(violation(importer, specifier, target), undefined, `${importer} → ${specifier}`);
    }
  });
});
