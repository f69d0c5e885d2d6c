// The configuration reference exists once: every variable the code reads has a definition (config/variables.ts and
// the features' settings modules), every definition is of a variable something reads, and no variable is defined
// twice. The page generated from them is checked for drift with the other generated files (openapi.test.ts).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from '#api/config/config.ts';
import { CONFIGURATION, VARIABLES } from '#api/config/variables.ts';
import { alertRules, platformMetrics } from '#api/metrics/reference.ts';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return files(file);
    return /\.ts$/.test(name) && !/\.test\.ts$/.test(name) ? [file] : [];
  });
}

/** What the configuration is read from: the API's sources and `npm start`'s supervisor. */
const READERS = [...files(path.join(REPO_ROOT, 'apps/api/src')), path.join(REPO_ROOT, 'scripts/start.ts')];

/** A template literal's text with each `${…}` as `*`: `RPC_URL_${id}` is `RPC_URL_*`. */
const pattern = (template: string) => template.replace(/\$\{[^}]*\}/g, '*');

/**
 * The variables a source text reads: `env.NAME` and `process.env.NAME`, `env['NAME']`, `` env[`NAME_${id}`] `` (as
 * `NAME_*`), `env[name]` where `name` is a template literal set in the same text, and the names given to the
 * parsing helpers (`int('NAME', …)`, `parseInteger('NAME', …)`, `integer(env, 'NAME', …)`, `parsePort('NAME', …)`).
 */
function variablesRead(text: string): string[] {
  const found = new Set<string>();
  for (const [, name] of text.matchAll(/\benv\??\.([A-Z][A-Z0-9_]+)\b/g)) found.add(name as string);
  for (const [, name] of text.matchAll(/\benv\[\s*'([A-Z][A-Z0-9_]+)'\s*\]/g)) found.add(name as string);
  for (const [, template] of text.matchAll(/\benv\[\s*`([^`]*)`\s*\]/g)) found.add(pattern(template as string));
  for (const [, variable] of text.matchAll(/\benv\[\s*([a-z]\w*)\s*\]/g)) {
    const set = new RegExp(`\\b(?:const|let)\\s+${variable}\\s*=\\s*\`([^\`]*)\``).exec(text);
    if (set) found.add(pattern(set[1] as string));
  }
  for (const [, name] of text.matchAll(
    /\b(?:int|integer|parseInteger|parsePort)\(\s*(?:env,\s*)?'([A-Z][A-Z0-9_]+)'/g,
  )) {
    found.add(name as string);
  }
  return [...found];
}

/** A name with `*` or a `<placeholder>` as a pattern matching the names it stands for. */
const matcher = (name: string) => {
  const parts = name.split(/<[^>]+>|\*/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[A-Z0-9_*]+')}$`);
};
const normal = (name: string) => name.replace(/<[^>]+>/g, '*');

/** Whether a name the code reads is one of the defined ones (either may stand for a family: `RPC_URL_*`). */
const defines = (defined: string, read: string) =>
  matcher(defined).test(normal(read)) || matcher(read).test(normal(defined));

const DEFINED = VARIABLES.flatMap((v) => v.names);

describe('the configuration reference', () => {
  it('finds the variables a text reads, however it reads them', () => {
    const text = [
      'const a = env.NEW_LIMIT ?? process.env.OTHER_PORT;',
      "const b = env['QUOTED_NAME'];",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: source text the scan reads
      'const c = env[`FEE_${id}`];',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: source text the scan reads
      'const name = `LANE_${lane.toUpperCase()}`; const d = env[name];',
      "const e = int('BATCH_SIZE', 10, 1, 100); const f = integer(env, 'POLL_MS', 1, 1, 9);",
      "problems.push('NOT_READ is only a message');",
    ].join('\n');
    assert.deepEqual(variablesRead(text).sort(), [
      'BATCH_SIZE',
      'FEE_*',
      'LANE_*',
      'NEW_LIMIT',
      'OTHER_PORT',
      'POLL_MS',
      'QUOTED_NAME',
    ]);
    assert.ok(defines('RPC_URL_<networkId>', 'RPC_URL_1337'));
    assert.ok(defines('RPC_URL_<networkId>', 'RPC_URL_*'));
    assert.ok(defines('<NAME>_FILE', '*_FILE'));
    assert.ok(defines('WORKER_CONCURRENCY_SENDING', 'WORKER_CONCURRENCY_*'));
    assert.ok(!defines('RPC_URL_<networkId>', 'RPC_MAX_RPS_1'));
    assert.ok(!defines('API_PORT', 'API_PORTS'));
  });

  it('defines every variable the API and `npm start` read', () => {
    assert.ok(READERS.length > 100, `${READERS.length} source files`);
    const missing = READERS.flatMap((file) =>
      variablesRead(readFileSync(file, 'utf8'))
        .filter((name) => !DEFINED.some((defined) => defines(defined, name)))
        .map((name) => `${path.relative(REPO_ROOT, file)}: ${name}`),
    );
    assert.deepEqual(missing, [], 'define each in its settings module (see apps/api/src/config/variables.ts)');
  });

  it('defines each variable once, with a default and a meaning, and only variables something reads', () => {
    assert.equal(
      new Set(DEFINED).size,
      DEFINED.length,
      `defined twice: ${DEFINED.filter((n, i) => DEFINED.indexOf(n) !== i)}`,
    );
    for (const v of VARIABLES) {
      assert.ok(v.names.length > 0 && v.default.length > 0 && v.meaning.length > 20, v.names.join(' / '));
    }
    // Read by the code, or named in a comment: the AWS SDK reads its credentials itself, and the KMS settings say so.
    const sources = [...READERS, path.join(REPO_ROOT, 'scripts/test.ts')].map((f) => readFileSync(f, 'utf8'));
    const read = sources.flatMap(variablesRead);
    const comments = sources
      .flatMap((text) => text.split('\n'))
      .filter((line) => /^\s*(\/\/|\/\*|\*)/.test(line))
      .join('\n');
    const unread = DEFINED.filter(
      (name) => !read.some((r) => defines(name, r)) && !new RegExp(`\\b${name}\\b`).test(comments),
    );
    assert.deepEqual(unread, [], 'a definition of a variable no code reads');
    assert.ok(CONFIGURATION.every((group) => group.variables.length > 0));
  });

  it('the configuration page is the generated one, and the metrics page shows the generated tables', () => {
    const page = readFileSync(path.join(REPO_ROOT, 'apps/docs/docs/operations/configuration.md'), 'utf8');
    assert.match(page, /@generated/);
    for (const name of DEFINED) assert.ok(page.includes(`\`${name}\``), `${name} is on the page`);
    const metrics = readFileSync(path.join(REPO_ROOT, 'apps/docs/docs/operations/metrics-and-alerts.md'), 'utf8');
    assert.match(metrics, /^import \w+ from '\.\/_generated\/_metrics\.mdx';$/m);
    assert.match(metrics, /^import \w+ from '\.\/_generated\/_alerts\.mdx';$/m);
    const table = readFileSync(path.join(REPO_ROOT, 'apps/docs/docs/operations/_generated/_metrics.mdx'), 'utf8');
    assert.ok(platformMetrics().length >= 10);
    for (const metric of platformMetrics()) assert.ok(table.includes(`| \`${metric.name}\` |`), metric.name);
    const alerts = readFileSync(path.join(REPO_ROOT, 'apps/docs/docs/operations/_generated/_alerts.mdx'), 'utf8');
    const rules = alertRules(readFileSync(path.join(REPO_ROOT, 'apps/api/monitoring/alerts.yml'), 'utf8'));
    assert.ok(rules.length >= 5);
    for (const rule of rules) assert.ok(alerts.includes(`| \`${rule.alert}\` |`), rule.alert);
  });
});
