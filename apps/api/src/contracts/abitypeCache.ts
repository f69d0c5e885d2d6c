// abitype (viem's ABI parser) keeps every parameter it has parsed in a module-level Map that is never emptied: each
// imported ABI, activated function or subscribed event with new parameter names stays in memory for good (about
// 0.75 MB per 64 KB ABI). Requests bring those strings, so the server puts back the cache as it found it after
// each parse. The Map is not exported; it is reached through the file viem's copy of abitype loads.
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseAbiParameter } from 'viem';

async function locate(): Promise<Map<string, unknown> | undefined> {
  try {
    const fromViem = createRequire(createRequire(import.meta.url).resolve('viem'));
    const root = path.dirname(fromViem.resolve('abitype/package.json'));
    const file = pathToFileURL(path.join(root, 'dist/esm/human-readable/runtime/cache.js')).href;
    const { parameterCache } = (await import(file)) as { parameterCache?: unknown };
    if (!(parameterCache instanceof Map)) return undefined;
    // The Map must be the one viem's parser fills.
    const probe = 'uint256 mountainCacheProbe';
    parseAbiParameter(probe);
    const found = parameterCache.has(probe);
    parameterCache.delete(probe);
    return found ? (parameterCache as Map<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const parameterCache = await locate();

/** Whether abitype's parameter cache was found (a test checks it, so an abitype upgrade that moves it is seen). */
export const abitypeCacheFound = parameterCache !== undefined;

/** The number of entries in abitype's parameter cache (for tests). */
export function abitypeCacheSize(): number {
  return parameterCache?.size ?? 0;
}

/** Runs `parse` (abitype calls) and removes what it added to abitype's parameter cache. */
export function withoutAbitypeCache<T>(parse: () => T): T {
  if (!parameterCache) return parse();
  const before = parameterCache.size;
  try {
    return parse();
  } finally {
    // Map keeps insertion order: what this call added is after the first `before` entries.
    if (parameterCache.size > before) {
      let i = 0;
      for (const key of parameterCache.keys()) if (i++ >= before) parameterCache.delete(key);
    }
  }
}
