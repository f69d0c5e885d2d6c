// The production dependencies against the advisory snapshot (security/advisories.json): no package of the lock file
// that production installs (`npm ci --omit=dev`) may be at a version an advisory of the snapshot affects. Offline, so
// it runs where no advisory source answers; the operations guide says how to refresh the snapshot.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from '@mountain/testkit/repoRoot.ts';
import { compareVersions, type Lock, packageNameAt, readLock } from './lib/lockFile.ts';

interface Advisory {
  package: string;
  id: string;
  title?: string;
  introducedIn?: string;
  fixedIn: string;
}
/** The advisories that affect a locked production package, as `name@version: id`. */
export function affected(lock: Lock, advisories: Advisory[]): string[] {
  const found: string[] = [];
  for (const [where, entry] of Object.entries(lock.packages)) {
    const name = packageNameAt(where);
    if (!name || entry.dev || entry.link || !entry.version) continue;
    for (const a of advisories) {
      if (a.package !== name) continue;
      const atOrAfterStart = a.introducedIn === undefined || compareVersions(entry.version, a.introducedIn) >= 0;
      if (atOrAfterStart && compareVersions(entry.version, a.fixedIn) < 0) {
        found.push(`${name}@${entry.version} (${where}): ${a.id}, fixed in ${a.fixedIn}`);
      }
    }
  }
  return found;
}

const snapshot = JSON.parse(readFileSync(path.join(REPO_ROOT, 'security/advisories.json'), 'utf8')) as {
  asOf: string;
  advisories: Advisory[];
};
const lock = readLock();

describe('production dependencies against the advisory snapshot', () => {
  it('no locked production package is at a version a known advisory affects', () => {
    assert.ok(snapshot.advisories.length >= 10, 'the snapshot holds the advisories');
    assert.deepEqual(affected(lock, snapshot.advisories), []);
    // The packages the snapshot watches are production dependencies today (through the Fireblocks SDK).
    for (const name of new Set(snapshot.advisories.map((a) => a.package))) {
      const entry = lock.packages[`node_modules/${name}`];
      assert.ok(entry?.version && !entry.dev, `${name} is a production dependency of the lock file`);
    }
  });

  it('flags a version inside an advisory’s range, and not one outside it or before it was introduced', () => {
    const at = (version: string, dev = false): Lock => ({
      packages: { '': {}, 'node_modules/@fireblocks/ts-sdk/node_modules/axios': { version, dev } },
    });
    const flagged = affected(at('1.15.0'), snapshot.advisories);
    assert.deepEqual(
      flagged.map((f) => f.split(': ')[1]?.split(',')[0]),
      ['CVE-2026-42033', 'CVE-2026-42035', 'GHSA-3w6x-2g7m-8v23', 'CVE-2026-44492'],
    );
    assert.deepEqual(affected(at('1.16.0'), snapshot.advisories), []);
    assert.deepEqual(affected(at('1.7.3', true), snapshot.advisories), [], 'a development package is not deployed');
    assert.equal(compareVersions('1.16.0-beta.1', '1.16.0'), -1);
    assert.equal(compareVersions('1.10.0', '1.9.9'), 1);
  });
});
