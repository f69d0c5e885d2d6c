import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { LoadContext, Plugin } from '@docusaurus/types';

interface Page {
  route: string;
  title: string;
  description: string;
}

const SECTIONS: { title: string; match: (route: string) => boolean }[] = [
  { title: 'Documentation', match: (r) => r.startsWith('/docs/') && !/\/docs\/(sdks-tools|services)\//.test(r) },
  { title: 'Services', match: (r) => r.startsWith('/docs/services/') },
  { title: 'SDKs and Tools', match: (r) => r.startsWith('/docs/sdks-tools/') },
  { title: 'API Reference', match: (r) => r === '/api-reference' },
  { title: 'Other pages', match: () => true },
];

function decode(text: string): string {
  return text
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'");
}

/** Title and description of a built page, read back from its HTML. */
async function readPage(outDir: string, route: string): Promise<Page> {
  const file = path.join(outDir, route === '/' ? 'index.html' : `${route.replace(/^\//, '')}/index.html`);
  const html = await readFile(file, 'utf8').catch(() => readFile(`${file.replace(/\/index\.html$/, '')}.html`, 'utf8'));
  const title = /<title[^>]*>([^<]*)<\/title>/.exec(html)?.[1] ?? route;
  const description = /<meta[^>]+name="description"[^>]+content="([^"]*)"/.exec(html)?.[1] ?? '';
  return { route, title: decode(title), description: decode(description) };
}

/**
 * Writes `/llms.txt` (https://llmstxt.org) after the build: every page of the site, grouped like the navbar,
 * with its title and description taken from the built HTML so it never drifts from the pages themselves.
 */
export default function llmsTxt(context: LoadContext): Plugin<void> {
  const { siteConfig } = context;
  return {
    name: 'llms-txt',
    async postBuild({ routesPaths, outDir }) {
      // Skip the not-found page, the search results page and the /docs forwarder (it only leads to the intro).
      const routes = [...new Set(routesPaths)]
        .filter((route) => !['/404.html', '/search', '/docs'].includes(route))
        .sort();
      const pages = await Promise.all(routes.map((route) => readPage(outDir, route)));
      const lines = [`# ${siteConfig.title}`, '', `> ${siteConfig.tagline}`, ''];
      const listed = new Set<string>();
      for (const section of SECTIONS) {
        const inSection = pages.filter((page) => !listed.has(page.route) && section.match(page.route));
        if (inSection.length === 0) continue;
        lines.push(`## ${section.title}`, '');
        for (const page of inSection) {
          listed.add(page.route);
          const url = new URL(page.route, siteConfig.url).href;
          lines.push(`- [${page.title}](${url})${page.description ? `: ${page.description}` : ''}`);
        }
        lines.push('');
      }
      await writeFile(path.join(outDir, 'llms.txt'), lines.join('\n'));
    },
  };
}
