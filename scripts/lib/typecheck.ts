// The repository's typecheck: all the code that runs on Node in one program (tsconfig.node.json: the files several
// workspaces share are checked once), then the docs site's and the console's React code. It runs on TypeScript 7,
// the native compiler, from its own workspace (packages/typecheck): the same checks as the root's TypeScript 5.9 at
// about a fifth of the CPU (8.6 CPU s instead of 40 for the Node program), single-threaded, because it runs beside
// the test files and a core it took from them costs more than its own wait. TypeScript 5.9 stays the root's compiler:
// it builds the packages, and Docusaurus needs it.
import { createRequire } from 'node:module';
import path from 'node:path';

export const TYPECHECKED_PROJECTS = ['tsconfig.node.json', 'apps/docs', 'apps/console'];

/** The path of TypeScript 7's `tsc`, resolved from the workspace that depends on it. */
export function typescript7(root: string): string {
  const manifest = createRequire(path.join(root, 'packages/typecheck/package.json')).resolve('typescript/package.json');
  return path.join(path.dirname(manifest), 'bin/tsc');
}

/** The command that checks one project (a tsconfig file or a folder holding one), from the repository's root. */
export function typecheckCommand(root: string, project: string): [command: string, ...args: string[]] {
  return [process.execPath, typescript7(root), '-p', project, '--singleThreaded'];
}
