import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { LoadContext, Plugin } from '@docusaurus/types';

export interface OpenApiReferenceOptions {
  /** The OpenAPI 3.1 JSON file: absolute, or relative to the site directory. */
  specPath: string;
  /** Where the reference page is served. */
  routePath: string;
  /** Where the file itself is served, byte for byte (by the dev server too), if anywhere. */
  servePath?: string;
}

/**
 * Renders the API reference natively at build time: the OpenAPI file is read once here, handed to the page
 * as route data, and server-rendered with the rest of the site. No viewer library is shipped to the browser.
 * See apps/docs/README.md for why. The file lives outside the site (in @mountain/openapi, not in `static/`), so
 * the plugin also emits it as an asset of the client bundle at `servePath`: written into the build, and served
 * from memory by the dev server.
 */
export default function openapiReference(context: LoadContext, options: OpenApiReferenceOptions): Plugin<unknown> {
  const specFile = path.resolve(context.siteDir, options.specPath);
  return {
    name: 'openapi-reference',
    getPathsToWatch() {
      return [specFile];
    },
    configureWebpack(_config, isServer) {
      const servePath = options.servePath;
      if (isServer || !servePath) return {};
      return {
        plugins: [
          {
            apply(compiler) {
              const { Compilation, sources } = compiler.webpack;
              compiler.hooks.thisCompilation.tap('openapi-reference', (compilation) => {
                compilation.hooks.processAssets.tapPromise(
                  { name: 'openapi-reference', stage: Compilation.PROCESS_ASSETS_STAGE_ADDITIONAL },
                  async () => {
                    compilation.fileDependencies.add(specFile);
                    compilation.emitAsset(
                      servePath.replace(/^\//, ''),
                      new sources.RawSource(await readFile(specFile)),
                    );
                  },
                );
              });
            },
          },
        ],
      };
    },
    async loadContent() {
      const text = await readFile(specFile, 'utf8').catch((error: unknown) => {
        throw new Error(`The API reference needs ${specFile}: run \`npm run openapi\` to generate it`, {
          cause: error,
        });
      });
      const spec = JSON.parse(text) as { openapi?: string; paths?: unknown };
      if (typeof spec.openapi !== 'string' || !spec.openapi.startsWith('3.') || typeof spec.paths !== 'object') {
        throw new Error(`${specFile} is not an OpenAPI 3 document`);
      }
      return spec;
    },
    async contentLoaded({ content, actions }) {
      // Minified: the document travels to the browser as the page's data chunk.
      const specModule = await actions.createData('public-api-v3.json', JSON.stringify(content));
      actions.addRoute({
        path: options.routePath,
        component: '@site/src/components/ApiReference/index.tsx',
        exact: true,
        modules: { spec: specModule },
      });
    },
  };
}
