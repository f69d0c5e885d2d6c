#!/usr/bin/env node
// mountain-admin: the admin CLI (src/cli/admin.ts). In a development install it runs the TypeScript sources,
// bundled again whenever one of them changed (@mountain/testkit/devBundle.js, with esbuild: dev dependencies), so it
// is never older than them; in a production install it runs the compiled JavaScript of `npm run build` (dist/).
// Exit code and output are the CLI's own.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const at = (relative) => fileURLToPath(new URL(relative, import.meta.url));

const sources = at('../src/cli/admin.ts');
const compiled = at('../dist/cli/admin.js');
let bundler;
try {
  if (existsSync(sources)) bundler = await import('@mountain/testkit/devBundle.js');
} catch {}
if (bundler) {
  const bundle = await bundler.devBundle(sources, bundler.bundleCacheOf(sources), 'admin', { split: true });
  process.setSourceMapsEnabled(true);
  const { main } = await import(pathToFileURL(bundle).href);
  await main(process.argv.slice(2));
} else if (existsSync(compiled)) {
  const args = ['--conditions=mountain-compiled', compiled, ...process.argv.slice(2)];
  const result = spawnSync(process.execPath, args, { stdio: 'inherit' });
  process.exit(result.status ?? 1);
} else {
  console.error('mountain-admin: neither the sources and dev dependencies nor dist/ (run npm run build) were found');
  process.exit(1);
}
