// Holds the repository to the picture in ARCHITECTURE.md. Imports run one way: apps → packages, never the
// reverse; one workspace reaches another by its package name (and only through what that package exports), never
// by a relative path; only tests import a test/ folder, and only their own workspace's; production sources import
// no test code (test/, testing/ or @mountain/testkit); apps/api/src has no import circle, and only the process
// start-up imports app.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  exists,
  fileOf,
  type Import,
  importCircles,
  readImports,
  resolveImport,
  sourceFiles,
  violation,
} from './lib/importGraph.ts';

const files = sourceFiles();
const imports = readImports(files);
const API_SOURCE = files.filter((f) => f.startsWith('apps/api/src/'));

/** Imports of app.ts from the API's own sources other than the process start-up. */
const appImports = (all: Import[]) =>
  all.filter(
    (i) =>
      fileOf(i.to) === 'apps/api/src/app.ts' &&
      i.from.startsWith('apps/api/src/') &&
      i.from !== 'apps/api/src/runtime/platform.ts',
  );

describe('imports run one way', () => {
  it('no source file imports against the direction of the layers', () => {
    assert.ok(imports.length > 300, `only ${imports.length} imports inside the repository were found`);
    const problems = imports.flatMap(({ from, specifier, to }) => {
      const found: string[] = [];
      if (!exists(to)) found.push(`${from}: ${specifier} does not exist`);
      const wrong = violation(from, specifier, to);
      if (wrong) found.push(`${from}: ${specifier} → ${to}: ${wrong}`);
      return found;
    });
    assert.deepEqual(problems, []);
  });

  it('apps/api/src has no import circle, and only the process start-up imports app.ts', () => {
    assert.ok(API_SOURCE.length > 100, `${API_SOURCE.length} API source files`);
    assert.ok(
      imports.some((i) => i.from === 'apps/api/src/app.ts' && fileOf(i.to) === 'apps/api/src/routes/index.ts'),
      'imports through the #api alias are resolved',
    );
    assert.deepEqual(importCircles(imports, API_SOURCE), []);
    assert.deepEqual(appImports(imports), []);
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
    const fake = (from: string, to: string): Import => ({ from, specifier: to, to });
    assert.deepEqual(
      importCircles(
        [fake('a.ts', 'b.ts'), fake('b.ts', 'c.ts'), fake('c.ts', 'a.ts'), fake('c.ts', 'd.ts')],
        ['a.ts', 'b.ts', 'c.ts', 'd.ts'],
      ),
      [['a.ts', 'b.ts', 'c.ts']],
    );
    assert.equal(appImports([fake('apps/api/src/http/route.ts', 'apps/api/src/app.ts')]).length, 1);
  });
});
