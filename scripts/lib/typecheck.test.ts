import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { REPO_ROOT } from '@mountain/testkit/repoRoot.ts';
import { typecheckCommand, typescript7 } from './typecheck.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'typecheck-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const version = (tsc: string) => execFileSync(process.execPath, [tsc, '--version'], { encoding: 'utf8' }).trim();

describe('the typecheck', () => {
  it('runs TypeScript 7, while the root’s tsc (the builds’, Docusaurus’s) stays TypeScript 5.9', () => {
    assert.match(version(typescript7(REPO_ROOT)), /^Version 7\./);
    assert.match(version(path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc')), /^Version 5\.9\./);
    // The command npm scripts and npx find under the name `tsc`.
    assert.match(
      execFileSync('npx', ['tsc', '--version'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim(),
      /^Version 5\.9\./,
    );
  });

  it('fails on a type error, naming the file, the line and the error', () => {
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        extends: path.join(REPO_ROOT, 'tsconfig.base.json'),
        compilerOptions: { noEmit: true, types: [] },
      }),
    );
    writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }');
    writeFileSync(path.join(dir, 'sum.ts'), 'export const sum = (a: number, b: number): number => a + b;\n');
    writeFileSync(
      path.join(dir, 'use.ts'),
      "import { sum } from './sum.ts';\n\nexport const three: string = sum(1, 2);\n",
    );
    const [command, ...args] = typecheckCommand(REPO_ROOT, dir);
    const failed = spawnSync(command, args, { cwd: dir, encoding: 'utf8' });
    assert.equal(failed.status, 1, failed.stdout + failed.stderr);
    assert.match(failed.stdout, /use\.ts\(3,14\): error TS2322: Type 'number' is not assignable to type 'string'\./);

    writeFileSync(
      path.join(dir, 'use.ts'),
      "import { sum } from './sum.ts';\n\nexport const three: number = sum(1, 2);\n",
    );
    const passed = spawnSync(command, args, { cwd: dir, encoding: 'utf8' });
    assert.equal(passed.status, 0, passed.stdout + passed.stderr);
  });
});
