import { createRequire } from 'node:module';
import path from 'node:path';
import type { LoadContext, Plugin } from '@docusaurus/types';

/**
 * Code is highlighted at build time (plugins/remark-static-highlight), so the theme's client module that loads
 * Prism into every page is replaced by an empty module in the browser bundle.
 */
export default function prismOffClient(context: LoadContext): Plugin<void> {
  const require = createRequire(path.join(context.siteDir, 'package.json'));
  const themeDir = path.dirname(require.resolve('@docusaurus/theme-classic/package.json'));
  return {
    name: 'prism-off-client',
    configureWebpack(_config, isServer) {
      if (isServer) return {};
      return {
        resolve: {
          alias: {
            [`${path.join(themeDir, 'lib/prism-include-languages')}$`]: path.join(
              context.siteDir,
              'plugins/empty-client-module.js',
            ),
          },
        },
      };
    },
  };
}
