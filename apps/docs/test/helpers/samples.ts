// Finds the code samples of the docs pages by the tag in their fence, and runs them the way a reader would.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleCacheOf, bundleOptions, vendorBundle } from '@mountain/testkit/devBundle.js';

export const DOCS_ROOT = fileURLToPath(new URL('../../docs/', import.meta.url));

/** The pages whose samples must be tagged: getting started, SDKs, services, the intro and authentication. */
export const SAMPLE_PAGES = ['intro.mdx', 'authentication.md', 'getting-started', 'sdks-tools', 'services'];

/**
 * One fenced code block. Its tag is in the fence's meta:
 * - `run=<id>`: executed by the test (TypeScript as tsx runs it, bash with `bash`, SQL on PostgreSQL);
 * - `shape=<id>`: not a program (a payload, an answer, an ABI); the test checks it parses and matches the server;
 * - `no-run="<reason>"`: neither, for the reason given (it starts the platform, installs from the registry, …).
 */
export interface Sample {
  page: string;
  line: number;
  lang: string;
  kind: 'run' | 'shape' | 'no-run' | 'untagged';
  /** The id for `run` and `shape`, the reason for `no-run`. */
  tag: string;
  code: string;
}

function pagesUnder(entry: string): string[] {
  const full = path.join(DOCS_ROOT, entry);
  if (/\.mdx?$/.test(entry)) return [entry];
  return readdirSync(full, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.mdx?$/.test(f))
    .map((f) => path.join(entry, f))
    .sort();
}

export function pages(): string[] {
  return SAMPLE_PAGES.flatMap(pagesUnder);
}

const META = /^(run|shape)=([\w-]+)$|^no-run="([^"]+)"$/;

/** Every fenced block of a page, with its tag. */
export function samplesOf(page: string): Sample[] {
  const lines = readFileSync(path.join(DOCS_ROOT, page), 'utf8').split('\n');
  const found: Sample[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w+)?\s*(.*)$/.exec(lines[i] ?? '');
    if (!open) continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith('```'));
    if (end < 0) throw new Error(`${page}:${i + 1}: the code block is not closed`);
    const lang = open[1] ?? 'text';
    const meta = (open[2] ?? '').trim();
    const code = `${lines.slice(i + 1, end).join('\n')}\n`;
    i = end;
    const tag = META.exec(meta);
    const kind = tag ? ((tag[1] ?? 'no-run') as Sample['kind']) : 'untagged';
    found.push({ page, line: i + 1, lang, kind, tag: tag ? (tag[2] ?? tag[3] ?? '') : meta, code });
  }
  return found;
}

export function allSamples(): Sample[] {
  return pages().flatMap(samplesOf);
}

const WORK_ROOT = fileURLToPath(new URL('../../.samples/', import.meta.url));

/** A folder inside the repository (so `@mountain/*` and the other dependencies resolve) for this run's files. */
export function workDir(): string {
  const dir = path.join(WORK_ROOT, `run-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), '{ "type": "module", "private": true }\n');
  return dir;
}

/** Writes a sample (and, optionally, a driver that imports it as `./<id>.ts`) and returns the file to run. */
export function writeSample(dir: string, sample: Sample, driver?: string): string {
  const ext = sample.lang === 'bash' ? 'sh' : sample.lang;
  const file = path.join(dir, `${sample.tag}.${ext}`);
  writeFileSync(file, sample.code);
  if (driver === undefined) return file;
  const driverFile = path.join(dir, `${sample.tag}.driver.ts`);
  writeFileSync(driverFile, driver);
  return driverFile;
}

export interface Output {
  code: number | null;
  stdout: string;
  stderr: string;
}

async function commandFor(file: string, extra: string[] = []): Promise<[string, string[]]> {
  if (file.endsWith('.sh')) return ['bash', ['-e', file]];
  if (file.endsWith('.ts')) return [process.execPath, ['--enable-source-maps', await bundled(file)]];
  return [process.execPath, [file, ...extra]];
}

/**
 * A TypeScript sample (and what it imports) transpiled by esbuild, as `tsx` would run it, into one file beside it:
 * bundled in this process, with the packages the test bundles share (devBundle.js) instead of `node --import tsx`,
 * whose start (module hooks, its own esbuild, viem's modules one by one) cost a second of CPU a sample.
 */
async function bundled(file: string): Promise<string> {
  const { build } = await import('esbuild');
  const out = file.replace(/\.ts$/, '.bundle.mjs');
  await build({
    ...bundleOptions(await vendorBundle(bundleCacheOf(fileURLToPath(import.meta.url)))),
    entryPoints: [file],
    outfile: out,
    absWorkingDir: path.dirname(file),
  });
  return out;
}

/** Runs a sample to its end (at most `timeoutMs`) with `env` added to the environment. */
export async function runFile(
  file: string,
  env: Record<string, string>,
  {
    cwd = path.dirname(file),
    timeoutMs = 30_000,
    args: extra = [],
  }: { cwd?: string; timeoutMs?: number; args?: string[] } = {},
): Promise<Output> {
  const [command, args] = await commandFor(file, extra);
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c;
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${path.basename(file)} did not finish within ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A sample that serves until stopped: started, then stopped with SIGTERM (a Node server exits on it). */
export interface RunningSample {
  output(): Output;
  stop(): Promise<Output>;
}

export async function startFile(file: string, env: Record<string, string>, readyUrl: string): Promise<RunningSample> {
  const [command, args] = await commandFor(file);
  const child: ChildProcess = spawn(command, args, { cwd: path.dirname(file), env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => {
    stdout += c;
  });
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c;
  });
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const output = () => ({ code: child.exitCode, stdout, stderr });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    return output();
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${path.basename(file)} exited early\n${stdout}\n${stderr}`);
    try {
      await fetch(readyUrl, { method: 'HEAD', signal: AbortSignal.timeout(1_000) });
      break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${path.basename(file)} did not listen within 20 s\n${stdout}\n${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { output, stop };
}

/** Parses output holding one or more JSON documents one after the other (curl prints no newline after a body). */
export function jsonDocuments(text: string): unknown[] {
  const documents: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      if (depth++ === 0) start = i;
    } else if (c === '}' || c === ']') {
      if (--depth === 0) documents.push(JSON.parse(text.slice(start, i + 1)));
    }
  }
  return documents;
}
