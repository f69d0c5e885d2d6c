// The README is a map: short, its first block the two commands and what `npm start` prints (as scripts/start.ts
// prints it), and links to files that exist, each docs page with its address on the local site.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from '@mountain/testkit/repoRoot.ts';

const README = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
const lines = README.trimEnd().split('\n');

/** A line of a template literal as a pattern: each `${…}` stands for anything. */
function templateLine(line: string): RegExp {
  let pattern = '';
  for (let i = 0; i < line.length; i++) {
    if (line.startsWith('${', i)) {
      let depth = 0;
      for (; i < line.length; i++) {
        if (line[i] === '{') depth++;
        else if (line[i] === '}' && --depth === 0) break;
      }
      pattern += '.+';
    } else pattern += (line[i] as string).replace(/[.*+?^$()|[\]\\{}]/g, '\\$&');
  }
  return new RegExp(`^${pattern}$`);
}

describe('README.md', () => {
  it('is a map: at most 200 lines, none over 300 characters', () => {
    assert.ok(lines.length <= 200, `${lines.length} lines`);
    const long = lines.flatMap((line, i) => (line.length > 300 ? [`line ${i + 1}: ${line.length} characters`] : []));
    assert.deepEqual(long, []);
  });

  it('opens with the two commands, then what `npm start` prints, line by line as scripts/start.ts prints it', () => {
    const blocks = [...README.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)];
    const [commands, output] = blocks;
    assert.equal(commands?.[1], 'bash');
    assert.match(commands?.[2] ?? '', /^npm install && npm start\s.*\nnpm test\s/);
    assert.ok((commands?.index ?? Infinity) < README.indexOf('## '), 'the commands come before any section');
    const source = readFileSync(path.join(REPO_ROOT, 'scripts/start.ts'), 'utf8');
    const from = source.indexOf('Mountain is running.');
    const printed = source.slice(from, source.indexOf('`);', from)).split('\n');
    const shown = (output?.[2] ?? '').trimEnd().split('\n');
    assert.ok(shown.length >= 10 && shown.length <= printed.length, `${shown.length} lines shown`);
    for (const [i, line] of shown.entries()) {
      assert.match(line, templateLine(printed[i] as string), `line ${i + 1} of the output`);
    }
  });

  it('links to files that exist, and to each docs page also by its address on the local site', () => {
    const targets = [...README.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)].map((m) => m[1] as string);
    assert.ok(
      targets.some((t) => t.startsWith('apps/docs/docs/operations/')),
      'links to the operations guide',
    );
    const missing = targets.filter((t) => !/^https?:/.test(t) && !existsSync(path.join(REPO_ROOT, t)));
    assert.deepEqual(missing, []);
    for (const line of lines.filter((l) => /^\| .*\(apps\/docs\/docs\/[^)]+\.mdx?\) \|/.test(l))) {
      const page = /\(apps\/docs\/docs\/([^)]+)\.mdx?\)/.exec(line)?.[1] as string;
      assert.ok(line.includes(`http://127.0.0.1:3000/docs/${page} `), `the row of ${page} gives its local address`);
    }
  });
});
