// In the monorepo, `exports` points at the TypeScript source so other workspaces run it directly with tsx.
// npm (unlike pnpm) ignores `publishConfig.exports`, so `npm pack`/`npm publish` swap it in around packing:
// `apply` (prepack) writes the published manifest, `restore` (postpack) puts the development one back.
import { copyFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

// npm runs pack lifecycle scripts in the package's own folder.
const manifest = `${process.cwd()}/package.json`;
const backup = `${process.cwd()}/package.json.development`;

const command = process.argv[2];
if (command === 'apply') {
  if (existsSync(backup)) throw new Error('package.json.development exists: run "restore" first');
  const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
  copyFileSync(manifest, backup);
  const { exports, ...publishConfig } = pkg.publishConfig;
  pkg.exports = exports;
  pkg.publishConfig = Object.keys(publishConfig).length > 0 ? publishConfig : undefined;
  pkg.devDependencies = undefined;
  pkg.scripts = undefined;
  writeFileSync(manifest, `${JSON.stringify(pkg, null, 2)}\n`);
} else if (command === 'restore') {
  if (existsSync(backup)) renameSync(backup, manifest);
} else {
  throw new Error('usage: node scripts/publishManifest.js apply|restore');
}
