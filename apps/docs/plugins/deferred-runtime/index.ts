import { readFileSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from '@docusaurus/types';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** The site's own script bundles as Docusaurus writes them into each page (attribute quotes minified away or not). */
const BUNDLE = /<script src="?(\/assets\/js\/[^"\s>]+\.js)"? defer(?:="")?><\/script>/g;

async function htmlFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.html')).map((e) => path.join(e.parentPath, e.name));
}

/**
 * A reader who only reads does not pay for the runtime. Every page is complete server-rendered HTML; after the
 * build, each page's `<script src=… defer>` bundles become inert placeholders (`<script data-runtime=…>`) that the
 * inline loader (loader.js) turns into scripts on the reader's first sign of interaction (a mouse or pen moving
 * or pressed, a tap, a key, focus; not a finger scrolling), or at once on a page whose head has
 * `<meta name="mountain:runtime" content="at-once">` (the search results). A control clicked before the runtime is ready is clicked again once the page is hydrated
 * (client.js). Links work without it: they load the next page's HTML.
 */
export default function deferredRuntime(): Plugin<void> {
  return {
    name: 'deferred-runtime',
    getClientModules: () => [path.join(HERE, 'client.js')],
    injectHtmlTags() {
      // The comments stay out of every page.
      const code = readFileSync(path.join(HERE, 'loader.js'), 'utf8')
        .split('\n')
        .filter((line) => !/^\s*\/\//.test(line))
        .join('\n');
      return { headTags: [{ tagName: 'script', attributes: {}, innerHTML: code }] };
    },
    async postBuild({ outDir }) {
      for (const file of await htmlFiles(outDir)) {
        const html = await readFile(file, 'utf8');
        const deferred = html.replace(BUNDLE, '<script data-runtime="$1"></script>');
        if (deferred !== html) await writeFile(file, deferred);
      }
    },
  };
}
