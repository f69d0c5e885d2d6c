// The stock site bench:site measures beside ours: Docusaurus as its classic preset comes (the same version as ours,
// no `faster`, Prism in the browser, no deferred runtime) with redocusaurus rendering the same OpenAPI file at
// /api-reference, our introduction as /docs/intro and the classic template's home page. Built once into
// .data/stock-docs-site/ (redocusaurus installed there from the npm registry; Docusaurus resolved from this
// repository's node_modules) and again whenever this file or the introduction changes.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from '@mountain/testkit/repoRoot.ts';

const REDOCUSAURUS = '2.5.2';
const HERE = path.dirname(fileURLToPath(import.meta.url));
const DOCS = path.resolve(HERE, '../docs');

const CONFIG = (openapi: string) => `// @ts-check
/** @type {import('@docusaurus/types').Config} */
module.exports = {
  title: 'Mountain',
  tagline: 'Blockchain infrastructure for developers',
  url: 'https://docs.mountain.dev',
  baseUrl: '/',
  onBrokenLinks: 'ignore',
  markdown: { hooks: { onBrokenMarkdownLinks: 'ignore' } },
  presets: [
    ['classic', { docs: { routeBasePath: 'docs' }, blog: false }],
    ['redocusaurus', { specs: [{ id: 'public-api-v3', spec: ${JSON.stringify(openapi)}, route: '/api-reference' }] }],
  ],
  themeConfig: {
    colorMode: { defaultMode: 'dark', disableSwitch: true, respectPrefersColorScheme: false },
    navbar: {
      title: 'Mountain',
      items: [
        { to: '/docs/intro', label: 'Documentation', position: 'left' },
        { to: '/api-reference', label: 'API Reference', position: 'left' },
      ],
    },
    footer: { style: 'dark', copyright: 'Mountain' },
  },
};
`;

// The classic template's home page: a hero with a call to action, and three features.
const HOME = `import React from 'react';
import Link from '@docusaurus/Link';
import Layout from '@theme/Layout';
import useDocusaurusContext from '@docusaurus/useDocusaurusContext';

const FEATURES = [
  ['Easy to use', 'One REST API for projects, wallets, contracts, transactions and events.'],
  ['Focus on what matters', 'Mountain signs, sends and watches; you write your product.'],
  ['Signed webhooks', 'Events delivered to your server, signed, retried and replayable.'],
];

export default function Home() {
  const { siteConfig } = useDocusaurusContext();
  return (
    <Layout title="Home" description={siteConfig.tagline}>
      <header className="hero hero--primary">
        <div className="container">
          <h1 className="hero__title">{siteConfig.title}</h1>
          <p className="hero__subtitle">{siteConfig.tagline}</p>
          <Link className="button button--secondary button--lg" to="/docs/intro">Get started</Link>
        </div>
      </header>
      <main>
        <section className="container margin-vert--lg">
          <div className="row">
            {FEATURES.map(([title, text]) => (
              <div key={title} className="col col--4">
                <h2>{title}</h2>
                <p>{text}</p>
              </div>
            ))}
          </div>
        </section>
      </main>
    </Layout>
  );
}
`;

/** Builds the stock site when needed; answers its build directory. */
export function stockSiteBuild(): string {
  const root = path.join(REPO_ROOT, '.data/stock-docs-site');
  const build = path.join(root, 'build');
  const openapi = createRequire(import.meta.url).resolve('@mountain/openapi/public-api-v3.json');
  const intro = readFileSync(path.join(DOCS, 'intro.mdx'), 'utf8');
  const stamp = createHash('sha256')
    .update(readFileSync(fileURLToPath(import.meta.url)))
    .update(intro)
    .update(readFileSync(openapi))
    .digest('hex');
  const stampFile = path.join(root, 'built-from');
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp && existsSync(build)) return build;

  console.log(`Building the stock site (Docusaurus + redocusaurus ${REDOCUSAURUS}) in ${root}…`);
  mkdirSync(root, { recursive: true });
  if (!existsSync(path.join(root, 'node_modules/redocusaurus'))) {
    writeFileSync(path.join(root, 'package.json'), '{ "name": "stock-docs-site", "private": true }\n');
    // Its peers (Docusaurus, React) come from this repository; npm would install a second copy of each.
    execFileSync(
      'npm',
      [
        'install',
        '--no-save',
        '--no-package-lock',
        '--legacy-peer-deps',
        '--no-audit',
        '--no-fund',
        `redocusaurus@${REDOCUSAURUS}`,
      ],
      { cwd: root, stdio: 'inherit' },
    );
  }
  for (const dir of ['docs', 'src', 'build', '.docusaurus'])
    rmSync(path.join(root, dir), { recursive: true, force: true });
  mkdirSync(path.join(root, 'docs/_generated'), { recursive: true });
  mkdirSync(path.join(root, 'src/pages'), { recursive: true });
  writeFileSync(path.join(root, 'docs/intro.mdx'), intro);
  cpSync(path.join(DOCS, '_generated'), path.join(root, 'docs/_generated'), { recursive: true });
  writeFileSync(path.join(root, 'src/pages/index.js'), HOME);
  writeFileSync(path.join(root, 'docusaurus.config.js'), CONFIG(openapi));
  const docusaurus = createRequire(import.meta.url).resolve('@docusaurus/core/bin/docusaurus.mjs');
  execFileSync(process.execPath, [docusaurus, 'build'], { cwd: root, stdio: 'inherit' });
  writeFileSync(stampFile, stamp);
  return build;
}
