// The root package-lock.json as the dependency checks read it (scripts/platforms.test.ts, scripts/advisories.test.ts):
// its packages by install path and name, and the one version comparison both use.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '@mountain/testkit/repoRoot.ts';

/** What the checks read of a lock file entry. */
export interface LockEntry {
  version?: string;
  dev?: boolean;
  link?: boolean;
  engines?: { node?: string } | string[];
  os?: string[];
  cpu?: string[];
  optional?: boolean;
  optionalDependencies?: Record<string, string>;
}

export interface Lock {
  packages: Record<string, LockEntry>;
}

export const readLock = (): Lock => JSON.parse(readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as Lock;

/** The package an install path holds (`node_modules/a/node_modules/@b/c` → `@b/c`); undefined for the root. */
export function packageNameAt(where: string): string | undefined {
  const at = where.lastIndexOf('node_modules/');
  return at < 0 ? undefined : where.slice(at + 'node_modules/'.length);
}

/** -1, 0 or 1: `major.minor.patch` versions, missing parts 0, a leading `v` ignored (a pre-release sorts before its release). */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const [core = '', pre] = v.replace(/^v/, '').split('-', 2);
    return { parts: core.split('.').map((part) => Number.parseInt(part, 10) || 0), pre };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) {
    const d = (x.parts[i] ?? 0) - (y.parts[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  if (x.pre === y.pre) return 0;
  if (x.pre === undefined) return 1;
  if (y.pre === undefined) return -1;
  return x.pre < y.pre ? -1 : 1;
}
