// TypeScript entries of the repository as one JavaScript file each, for a development install: the admin CLI's bin,
// the test runner and the tests that start the platform's processes run these instead of the sources through tsx.
// tsx hooks every module a process loads, its dependencies' too: viem's 700 files cost 1 s of CPU that way against
// 0.4 s natively, so a process of the platform spent 2.5–3 s starting. A bundle (esbuild, ~0.2 s) of the sources,
// the dependencies left to Node, starts in about a third of that.
//
// - The repository's own code is in the bundle (its packages too, `@mountain/*`, and `#api/*` imports); every other
//   package is imported from node_modules as tsx would have.
// - `import.meta.url` (and `.dirname`, `.filename`) keeps its meaning: each source file's own is written in its
//   place, so what a module finds next to itself (migrations, fixtures, the repository's root) is found as before.
// - Source maps are linked, so a stack trace names the TypeScript line (Node's --enable-source-maps).
// Plain JavaScript, so the bin can use it before any TypeScript runs.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** Bumped when the way bundles are made changes, so bundles made before are made again. */
const FORMAT = 2;

/**
 * The esbuild options shared by every bundle: ESM for Node 20, the repository's code in, the rest external.
 * @returns {import('esbuild').BuildOptions}
 */
export function bundleOptions() {
  return {
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
    plugins: [
      {
        name: 'mountain-sources',
        setup(build) {
          build.onResolve({ filter: /^[^./#]/ }, (args) =>
            args.path.startsWith('@mountain/') || path.isAbsolute(args.path)
              ? undefined
              : { path: args.path, external: true },
          );
          build.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, async (args) => {
            const source = await readFile(args.path, 'utf8');
            const extension = path.extname(args.path).replace(/^\.[cm]?/, '');
            const meta = { url: pathToFileURL(args.path).href, dirname: path.dirname(args.path), filename: args.path };
            return {
              // A pattern, not the words themselves, so that this file can be bundled too.
              contents: source.replace(/\bimport\.meta\.(url|dirname|filename)\b/g, (_, key) =>
                JSON.stringify(meta[key]),
              ),
              loader: /** @type {'js' | 'jsx' | 'ts' | 'tsx'} */ (extension),
            };
          });
        },
      },
    ],
  };
}

/**
 * Bundles `entry` (a TypeScript file) into `<cacheDir>/<name>.mjs` unless the bundle there was made from the same
 * inputs (same size and modification time each); returns the bundle's path. Safe when several processes ask at
 * once: each writes its own files and renames them in place.
 *
 * With `split`, the bundle is `<cacheDir>/<name>/<name>.mjs` and what it imports dynamically goes into chunks beside
 * it (esbuild's splitting), with the packages those import: in one file, every package a module imports is loaded at
 * start, even for a module imported only on demand. Chunks are named by their content; when a bundle is made again,
 * the chunks of the bundle before it stay (a process started from that one may not have loaded them yet), older ones
 * are removed.
 *
 * @param {string} entry
 * @param {string} cacheDir
 * @param {string} name
 * @param {{ split?: boolean }} [options]
 * @returns {Promise<string>}
 */
export async function devBundle(entry, cacheDir, name, { split = false } = {}) {
  const outdir = split ? path.join(cacheDir, name) : cacheDir;
  const out = path.join(outdir, `${name}.mjs`);
  const record = path.join(cacheDir, `${name}.inputs.json`);
  const fresh = await isFresh(record, out);
  if (fresh) return out;

  const previousChunks = split ? await chunksOf(record) : [];
  const { build } = await import('esbuild');
  const result = await build({
    ...bundleOptions(),
    entryPoints: { [name]: entry },
    outdir,
    outExtension: { '.js': '.mjs' },
    ...(split ? { splitting: true, chunkNames: 'chunk-[hash]' } : {}),
    write: false,
    absWorkingDir: ROOT,
  });
  const inputs = {};
  for (const input of Object.keys(result.metafile.inputs)) {
    const file = path.resolve(ROOT, input);
    const { size, mtimeMs } = await stat(file);
    inputs[file] = [size, mtimeMs];
  }
  await mkdir(outdir, { recursive: true });
  // Maps first, then the chunks, the bundle next, the record of its inputs last: a record names a bundle that is
  // complete.
  const rank = (file) => (file.path.endsWith('.map') ? 0 : file.path === out ? 2 : 1);
  for (const file of [...result.outputFiles].sort((a, b) => rank(a) - rank(b))) {
    await replace(file.path, file.contents);
  }
  const chunks = result.outputFiles.map((file) => path.basename(file.path)).filter((file) => file.startsWith('chunk-'));
  await replace(record, JSON.stringify({ format: FORMAT, inputs, chunks }));
  if (split) {
    const kept = new Set([...chunks, ...previousChunks]);
    for (const file of await readdir(outdir)) {
      if (file.startsWith('chunk-') && !kept.has(file)) await rm(path.join(outdir, file), { force: true });
    }
  }
  return out;
}

/** The chunk files (and their maps) the bundle recorded in `record` named, if any. */
async function chunksOf(record) {
  try {
    const { chunks } = JSON.parse(await readFile(record, 'utf8'));
    return Array.isArray(chunks) ? chunks : [];
  } catch {
    return [];
  }
}

/** Writes a file whole or not at all: into a file of its own, then renamed in place. */
async function replace(file, contents) {
  const temporary = `${file}.${process.pid}-${randomBytes(4).toString('hex')}`;
  await writeFile(temporary, contents);
  await rename(temporary, file);
}

async function isFresh(record, out) {
  try {
    const { format, inputs } = JSON.parse(await readFile(record, 'utf8'));
    if (format !== FORMAT) return false;
    await stat(out);
    const checks = Object.entries(inputs).map(async ([file, [size, mtimeMs]]) => {
      const now = await stat(file);
      return now.size === size && now.mtimeMs === mtimeMs;
    });
    return (await Promise.all(checks)).every(Boolean);
  } catch {
    return false;
  }
}

/**
 * Where the bundles of a file's workspace go: `node_modules/.cache/mountain` in the nearest folder with a
 * package.json, so that the dependencies the bundle leaves to Node resolve as from the file itself (a workspace may
 * have packages of its own in its node_modules).
 * @param {string} file
 * @returns {string}
 */
export function bundleCacheOf(file) {
  let dir = path.dirname(path.resolve(ROOT, file));
  while (dir !== ROOT && !existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return path.join(dir, 'node_modules', '.cache', 'mountain');
}

/**
 * The arguments of `node` that run a TypeScript entry of the repository (a path from its root, or absolute) from its
 * bundle (see `bundleCacheOf`), in place of `--import tsx <entry>`.
 * @param {string} entry
 * @returns {Promise<string[]>}
 */
export async function bundledEntry(entry) {
  const file = path.resolve(ROOT, entry);
  const name = path
    .relative(ROOT, file)
    .replace(/\.[cm]?tsx?$/, '')
    .replaceAll(path.sep, '-');
  return ['--enable-source-maps', await devBundle(file, bundleCacheOf(file), name)];
}
