// `npm run pack:sdks`: the two SDKs as a user installs them, one tarball each in packs/ (git-ignored).
//
// Inside the repository the SDKs' `exports` point at their TypeScript sources (and at dist/ under the
// `mountain-compiled` condition), so no workspace needs a build. The published form is built apart, in a staging
// folder, so that packing never rewrites a package.json the other workspaces are reading:
//   dist/        ESM and its .d.ts, compiled by tsc (tsconfig.build.json: no tests, no test helpers)
//   dist/cjs/    one CommonJS file bundled by esbuild, for require(), with the same .d.ts marked CommonJS
// and a manifest made of the package's own fields with `publishConfig`'s `main`, `types` and `exports` applied (npm
// itself ignores `publishConfig.exports`). `npm publish packs/<tarball>` publishes one as it was tested.
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The SDK workspaces, in the order their tarballs are listed. */
export const SDK_PACKAGES = ['packages/client', 'packages/webhooks'];

/** Where `npm run pack:sdks` writes the tarballs. */
export const PACKS_DIR = path.join(ROOT, 'packs');

/** The manifest fields a published SDK keeps from its workspace package.json. */
const KEPT_FIELDS = ['name', 'version', 'description', 'keywords', 'license', 'type', 'sideEffects', 'engines'];

interface Manifest {
  name: string;
  version: string;
  publishConfig: { main: string; types: string; exports: unknown };
  [field: string]: unknown;
}

/** The published manifest of a workspace package: its own fields, `publishConfig` applied, no scripts or devDeps. */
export function publishedManifest(pkg: Manifest): Record<string, unknown> {
  const kept = Object.fromEntries(KEPT_FIELDS.filter((f) => pkg[f] !== undefined).map((f) => [f, pkg[f]]));
  const { main, types, exports } = pkg.publishConfig;
  return { ...kept, main, types, exports, files: ['dist'] };
}

/** Builds one SDK into `stage` (a folder npm can pack as is). */
async function stage(packageDir: string, stageDir: string): Promise<void> {
  const pkg = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as Manifest;
  const dist = path.join(stageDir, 'dist');
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const { build } = await import('esbuild');
  await Promise.all([
    run(
      process.execPath,
      [
        tsc,
        '-p',
        'tsconfig.build.json',
        '--outDir',
        dist,
        '--sourceMap',
        'false',
        '--declarationMap',
        'false',
        '--noCheck',
      ],
      {
        cwd: packageDir,
      },
    ),
    build({
      entryPoints: [path.join(packageDir, 'src/index.ts')],
      outfile: path.join(dist, 'cjs/index.js'),
      bundle: true,
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      packages: 'external',
      logLevel: 'error',
    }),
  ]);
  // The declarations again under dist/cjs/, where package.json says "commonjs": TypeScript then reads them as the
  // types of a CommonJS module (a `require` import of an ESM-only .d.ts is an error under `module: nodenext`).
  for (const file of readdirSync(dist, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.d.ts') || file.startsWith('cjs')) continue;
    mkdirSync(path.dirname(path.join(dist, 'cjs', file)), { recursive: true });
    copyFileSync(path.join(dist, file), path.join(dist, 'cjs', file));
  }
  writeFileSync(path.join(dist, 'cjs/package.json'), '{ "type": "commonjs" }\n');
  writeFileSync(path.join(stageDir, 'package.json'), `${JSON.stringify(publishedManifest(pkg), null, 2)}\n`);
  for (const doc of ['README.md', 'LICENSE']) {
    if (existsSync(path.join(packageDir, doc))) cpSync(path.join(packageDir, doc), path.join(stageDir, doc));
  }
}

/** Builds and packs every SDK into `destination`; answers the tarballs' paths. */
export async function packSdks(destination: string = PACKS_DIR): Promise<string[]> {
  mkdirSync(destination, { recursive: true });
  const work = mkdtempSync(path.join(tmpdir(), 'mountain-sdk-stage-'));
  try {
    return await Promise.all(
      SDK_PACKAGES.map(async (dir, index) => {
        const stageDir = path.join(work, String(index));
        await stage(path.join(ROOT, dir), stageDir);
        const { stdout } = await run(
          'npm',
          ['pack', stageDir, '--pack-destination', destination, '--json', '--silent'],
          {
            cwd: work,
          },
        );
        const [{ filename }] = JSON.parse(stdout) as [{ filename: string }];
        return path.join(destination, filename);
      }),
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const tarball of await packSdks()) console.log(path.relative(process.cwd(), tarball));
}
