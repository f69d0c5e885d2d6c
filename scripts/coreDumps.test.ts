// The platform image writes no core dump: a process's memory holds the secrets it opened (the worker's: the
// deployment mnemonic and the keys derived from it). The Dockerfile's ENTRYPOINT is run here as the image runs it,
// in front of a command, from a shell whose soft limit allows core dumps; compose.yaml is read for the limit it sets
// on every process of the API and worker containers, `docker compose exec` included.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import yaml from 'js-yaml';
import { readDockerfile } from './lib/dockerfile.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

const platform = readDockerfile(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')).find((s) => s.name === 'platform');

/** The core file size limits, soft and hard, that `command` runs with, started from a shell that allows them. */
function coreLimits(command: string[]): { soft: string; hard: string; argv: string[]; status: number | null } {
  const report = [
    'node',
    '-e',
    `const limits = require('node:fs').readFileSync('/proc/self/limits', 'utf8');
     const [soft, hard] = /^Max core file size\\s+(\\S+)\\s+(\\S+)/m.exec(limits).slice(1);
     console.log(JSON.stringify({ soft, hard, argv: process.argv.slice(1) }));
     process.exit(7);`,
    'one',
    'two words',
  ];
  const result = spawnSync(
    '/bin/sh',
    ['-c', 'ulimit -S -c "$(ulimit -H -c)" && exec "$@"', 'test', ...command, ...report],
    {
      encoding: 'utf8',
    },
  );
  assert.equal(result.stderr, '');
  return { ...JSON.parse(result.stdout), status: result.status };
}

describe('no core dumps from the platform image', () => {
  it("the image's ENTRYPOINT sets the core file limit to 0, soft and hard, and runs the command unchanged", (t) => {
    const entrypoint = platform?.json('ENTRYPOINT') as string[];
    assert.ok(Array.isArray(entrypoint), 'the platform stage has an ENTRYPOINT in exec form');
    const without = coreLimits([]);
    if (without.hard === '0') {
      t.skip('this machine allows no core dumps at all: the ENTRYPOINT cannot be told from its absence');
      return;
    }
    assert.notEqual(without.soft, '0', 'without the ENTRYPOINT the command may dump core');
    const within = coreLimits(entrypoint);
    assert.deepEqual(
      { soft: within.soft, hard: within.hard },
      { soft: '0', hard: '0' },
      'the hard limit too: the process cannot raise it again',
    );
    assert.deepEqual(within.argv, ['one', 'two words'], 'the arguments reach the command as they were');
    assert.equal(within.status, 7, "the command's exit code is the container's");
  });

  it('compose.yaml sets no core dumps on the API and worker containers', () => {
    const compose = yaml.load(readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8')) as {
      services: Record<string, { ulimits?: { core?: number | { soft: number; hard: number } } }>;
    };
    for (const role of ['api', 'worker']) {
      assert.equal(compose.services[role]?.ulimits?.core, 0, `${role}: ulimits.core`);
    }
  });
});
