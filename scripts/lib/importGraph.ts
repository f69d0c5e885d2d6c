// The repository's import graph: every import of every source file, resolved the way Node resolves it (relative
// paths, package.json `imports` such as `#api/*`, workspace packages through their `exports`), and the rules of
// ARCHITECTURE.md it is held to. scripts/architecture.test.ts runs them.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
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
export function resolveImport(importer: string, specifier: string): string | undefined {
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
export function isTestCode(file: string): boolean {
  const workspace = workspaceOf(file);
  const inFolder = (folder: string) => workspace !== undefined && file.startsWith(`${workspace.dir}/${folder}/`);
  return /\.test\.[mc]?[jt]sx?$|\/testing[^/]*\.[jt]sx?$/.test(file) || inFolder('test') || inFolder('testing');
}

/** What is wrong with `importer` importing `target` (both repository-relative), if anything. */
export function violation(importer: string, specifier: string, target: string): string | undefined {
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

export function sourceFiles(): string[] {
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

/** One import inside the repository. */
export interface Import {
  from: string;
  specifier: string;
  to: string;
}

/** Every import of `files` that lands inside the repository. */
export function readImports(files: string[]): Import[] {
  const imports: Import[] = [];
  for (const from of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(path.join(REPO_ROOT, from), 'utf8'), true, true);
    for (const { fileName: specifier } of importedFiles) {
      const to = resolveImport(from, specifier);
      if (to !== undefined) imports.push({ from, specifier, to });
    }
  }
  return imports;
}

/** Whether the imported file exists (the docs site's own modules are resolved by its bundler, extensions left out). */
export const exists = (target: string) =>
  ['', '.ts', '.tsx', '.js'].some((ext) => existsSync(path.join(REPO_ROOT, target + ext)));

/** The file an extensionless or folder import lands on, for the graph. */
export function fileOf(target: string): string {
  for (const candidate of [target, `${target}.ts`, `${target}.tsx`, `${target}/index.ts`]) {
    if (existsSync(path.join(REPO_ROOT, candidate)) && !candidate.endsWith('/') && SOURCE.test(candidate))
      return candidate;
  }
  return target;
}

/** The import circles among `files`: each is a list of files where each imports the next and the last the first. */
export function importCircles(imports: Import[], files: string[]): string[][] {
  const inside = new Set(files);
  const edges = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const { from, to } of imports) if (inside.has(from) && inside.has(fileOf(to))) edges.get(from)?.push(fileOf(to));
  // Tarjan's strongly connected components; every component of more than one file holds a circle.
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string) => {
    order.set(file, index);
    low.set(file, index++);
    stack.push(file);
    onStack.add(file);
    for (const next of edges.get(file) ?? []) {
      if (!order.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file) as number, low.get(next) as number));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file) as number, order.get(next) as number));
    }
    if (low.get(file) === order.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      const selfImport = edges.get(file)?.includes(file);
      if (component.length > 1 || selfImport) circles.push(component.sort());
    }
  };
  for (const file of files) if (!order.has(file)) visit(file);
  return circles;
}
