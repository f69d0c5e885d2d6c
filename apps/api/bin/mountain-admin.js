#!/usr/bin/env node
// mountain-admin: the admin CLI (src/cli/admin.ts). In a development install it runs the TypeScript sources
// through tsx, so it is never older than them; in a production install (no tsx) it runs the compiled JavaScript of
// `npm run build` (dist/). Exit code and output are the CLI's own.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const at = (relative) => fileURLToPath(new URL(relative, import.meta.url));

let tsx;
try {
  tsx = import.meta.resolve('tsx');
} catch {}
const compiled = at('../dist/cli/admin.js');
let args;
if (tsx) args = ['--import', tsx, at('../src/cli/admin.ts')];
else if (existsSync(compiled)) args = ['--conditions=mountain-compiled', compiled];
else {
  console.error('mountain-admin: neither tsx (a development install) nor dist/ (run npm run build) was found');
  process.exit(1);
}
const result = spawnSync(process.execPath, [...args, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(result.status ?? 1);
