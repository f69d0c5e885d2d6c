// TypeScript entries of the repository as one JavaScript file each, for a development install: the admin CLI's bin,
// the test runner and the tests that start the platform's processes run these instead of the sources through tsx.
// tsx hooks every module a process loads, its dependencies' too: viem's 700 files cost 1 s of CPU that way against
// 0.4 s natively, so a process of the platform spent 2.5–3 s starting. A bundle (esbuild, ~0.2 s) of the sources,
// the dependencies left to Node, starts in about a third of that.
//
// - The repository's own code is in the bundle (its packages too, `@mountain/*`, and `#api/*` imports); every other
//   package is imported from node_modules as tsx would have, but for VENDORED ones.
// - VENDORED: packages of many small ES modules that only the repository imports. Node found and read typebox's 684
//   files and viem's 362 one by one: 1 s of a test process's 1.8 s of CPU to load the API. They are bundled once per
//   lock file into a vendor folder beside the bundles (one build, its modules shared in chunks, so each package is one
//   instance however it is imported) and the bundles import that: 0.9 s. The vendor has no source map: Node's
//   --enable-source-maps decodes a bundle's whole map as it loads, and theirs would cost 0.6 s more.
// - `import.meta.url` (and `.dirname`, `.filename`) keeps its meaning: each source file's own is written in its
//   place, so what a module finds next to itself (migrations, fixtures, the repository's root) is found as before.
// - Source maps are linked, so a stack trace names the TypeScript line (Node's --enable-source-maps).
// Plain JavaScript, so the bin can use it before any TypeScript runs.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** Bumped when the way bundles are made changes, so bundles made before are made again. */
const FORMAT = 3;

/**
 * The bare imports of the repository's code that a vendor module answers, and the packages bundled into the vendor
 * with them (imported by them only). Another subpath of a vendored package is refused: imported from node_modules, it
 * would load a second instance of the package. abitype stays in node_modules, for viem's code and ours alike: the
 * API reaches one of its modules by file (src/contracts/abitypeCache.ts), which must be the one viem's parser uses.
 */
const VENDORED = ['typebox', 'typebox/compile', 'viem', 'viem/accounts'];
const VENDOR_INLINE = [
  'typebox',
  'viem',
  'ox',
  '@noble/curves',
  '@noble/hashes',
  '@scure/bip32',
  '@scure/bip39',
  '@scure/base',
];
const packageOf = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/** Rewrites `import.meta.url` (and `.dirname`, `.filename`) of each file it loads to that file's own. */
const keepImportMeta = {
  name: 'mountain-import-meta',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const extension = path.extname(args.path).replace(/^\.[cm]?/, '');
      const meta = { url: pathToFileURL(args.path).href, dirname: path.dirname(args.path), filename: args.path };
      return {
        // A pattern, not the words themselves, so that this file can be bundled too.
        contents: source.replace(/\bimport\.meta\.(url|dirname|filename)\b/g, (_, key) => JSON.stringify(meta[key])),
        loader: /** @type {'js' | 'jsx' | 'ts' | 'tsx'} */ (extension),
      };
    });
  },
};

/**
 * The esbuild options shared by every bundle: ESM for Node 20, the repository's code in, the VENDORED packages from
 * `vendor` (see vendorBundle), the rest external.
 * @param {Record<string, string>} vendor
 * @returns {import('esbuild').BuildOptions}
 */
export function bundleOptions(vendor) {
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
          build.onResolve({ filter: /^[^./#]/ }, (args) => {
            if (args.path.startsWith('@mountain/') || path.isAbsolute(args.path)) return undefined;
            const vendored = vendor[args.path];
            if (vendored) return { path: vendored, external: true };
            if (VENDOR_INLINE.includes(packageOf(args.path))) {
              return { errors: [{ text: `${args.path} is not in devBundle.js's VENDORED list: add it there` }] };
            }
            return { path: args.path, external: true };
          });
        },
      },
      keepImportMeta,
    ],
  };
}

/** @type {string | undefined} */
let vendorKeyOfProcess;
/** What the vendor folder is made from, hashed once a process: the list and the lock file, which names the installed
 * version of each (0.9 MB, read for every bundle otherwise). */
function vendorKey() {
  vendorKeyOfProcess ??= createHash('sha256')
    .update(JSON.stringify([FORMAT, VENDORED, VENDOR_INLINE]))
    .update(readFileSync(path.join(ROOT, 'package-lock.json')))
    .digest('hex')
    .slice(0, 16);
  return vendorKeyOfProcess;
}

/**
 * The VENDORED imports as files: built once per lock file into `<cacheDir>/vendor-<hash>`
 * (a folder made whole, then renamed into place), and answered from there after. Answers each import's file.
 * @param {string} cacheDir
 * @returns {Promise<Record<string, string>>}
 */
export async function vendorBundle(cacheDir) {
  const dir = path.join(cacheDir, `vendor-${vendorKey()}`);
  const fileOf = (specifier) => path.join(dir, `${specifier.replaceAll('/', '__')}.mjs`);
  const files = Object.fromEntries(VENDORED.map((specifier) => [specifier, fileOf(specifier)]));
  if (existsSync(path.join(dir, 'complete'))) return files;

  const { build } = await import('esbuild');
  const building = `${dir}.${process.pid}-${randomBytes(4).toString('hex')}`;
  await build({
    entryPoints: Object.fromEntries(VENDORED.map((specifier) => [specifier.replaceAll('/', '__'), specifier])),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    splitting: true,
    chunkNames: 'chunk-[hash]',
    outdir: building,
    outExtension: { '.js': '.mjs' },
    absWorkingDir: ROOT,
    logLevel: 'warning',
    plugins: [
      {
        name: 'mountain-vendor',
        setup(build) {
          build.onResolve({ filter: /^[^./]/ }, (args) =>
            args.kind === 'entry-point' || VENDOR_INLINE.includes(packageOf(args.path))
              ? undefined
              : { path: args.path, external: true },
          );
        },
      },
      keepImportMeta,
    ],
  });
  await writeFile(path.join(building, 'complete'), '');
  await rename(building, dir).catch(async (error) => {
    // Another process made it first: theirs is the same.
    await rm(building, { recursive: true, force: true });
    if (!existsSync(path.join(dir, 'complete'))) throw error;
  });
  return files;
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
    ...bundleOptions(await vendorBundle(cacheDir)),
    entryPoints: { [name]: entry },
    outdir,
    outExtension: { '.js': '.mjs' },
    ...(split ? { splitting: true, chunkNames: 'chunk-[hash]' } : {}),
    write: false,
    absWorkingDir: ROOT,
  });
  const inputs = {};
  // The lock file too: it names the vendor folder the bundle imports, which another lock file replaces.
  for (const input of [...Object.keys(result.metafile.inputs), 'package-lock.json']) {
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
