// npm run typecheck: each project of scripts/lib/typecheck.ts in turn, every error printed; exits 1 if any failed.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { TYPECHECKED_PROJECTS, typecheckCommand } from './lib/typecheck.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
let failed = 0;
for (const project of TYPECHECKED_PROJECTS) {
  const [command, ...args] = typecheckCommand(ROOT, project);
  const { status } = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit' });
  if (status !== 0) {
    console.error(`✖ typecheck ${project}`);
    failed++;
  }
}
process.exit(failed > 0 ? 1 : 0);
