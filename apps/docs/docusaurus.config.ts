import { createRequire } from 'node:module';
import type * as Preset from '@docusaurus/preset-classic';
import type { Config } from '@docusaurus/types';
import remarkStaticHighlight from './plugins/remark-static-highlight/index.ts';
import prismTheme from './src/prismTheme';

// The site is static: it holds no accounts and calls no product API. The only data it loads beyond its pages
// is the generated OpenAPI file (@mountain/openapi), which the local `openapi-reference` plugin renders at build
// time and also serves as it is, at /openapi/public-api-v3.json.
const OPENAPI_FILE = createRequire(import.meta.url).resolve('@mountain/openapi/public-api-v3.json');

const config: Config = {
  title: 'Mountain',
  tagline: 'Blockchain infrastructure for developers: projects, wallets, contracts, transactions and events',
  favicon: 'img/favicon.svg',
  url: 'https://docs.mountain.dev',
  baseUrl: '/',

  onBrokenLinks: 'throw',
  onBrokenAnchors: 'throw',
  onDuplicateRoutes: 'throw',

  i18n: { defaultLocale: 'en', locales: ['en'] },

  headTags: [
    {
      // A trailing `index.html` or `.html` is stripped from the address before the app starts (SPEC §2), so the
      // router and the server-rendered page agree on the path and hydration matches.
      tagName: 'script',
      attributes: {},
      innerHTML:
        "(function(){var l=window.location,p=l.pathname.replace(/(?:\\/index)?\\.html$/,'');if(p!==l.pathname)history.replaceState(history.state,'',(p||'/')+l.search+l.hash);})();",
    },
  ],

  future: {
    v4: { removeLegacyPostBuildHeadAttribute: true, useCssCascadeLayers: false },
    faster: true,
  },

  markdown: {
    hooks: { onBrokenMarkdownLinks: 'throw' },
  },

  presets: [
    [
      'classic',
      {
        docs: {
          routeBasePath: 'docs',
          sidebarPath: './sidebars.ts',
          remarkPlugins: [remarkStaticHighlight],
        },
        pages: { remarkPlugins: [remarkStaticHighlight] },
        blog: false,
        theme: { customCss: './src/css/custom.css' },
        sitemap: { lastmod: null, changefreq: null, priority: null },
      } satisfies Preset.Options,
    ],
  ],

  themes: [
    [
      '@easyops-cn/docusaurus-search-local',
      {
        // Offline search: the index is built with the site and served from it; no external service.
        hashed: true,
        language: ['en'],
        indexDocs: true,
        indexBlog: false,
        indexPages: false,
        docsRouteBasePath: '/docs',
        highlightSearchTermsOnTargetPage: false,
        searchBarShortcutHint: false,
      },
    ],
  ],

  plugins: [
    [
      './plugins/openapi-reference/index.ts',
      { specPath: OPENAPI_FILE, routePath: '/api-reference', servePath: '/openapi/public-api-v3.json' },
    ],
    './plugins/llms-txt/index.ts',
    './plugins/prism-off-client.ts',
    './plugins/deferred-runtime/index.ts',
  ],

  themeConfig: {
    metadata: [{ name: 'theme-color', content: '#0f1417' }],
    colorMode: {
      // Dark only, with no switch (SPEC §1). The server HTML is dark too: see src/theme/Root.tsx.
      defaultMode: 'dark',
      disableSwitch: true,
      respectPrefersColorScheme: false,
    },
    docs: { sidebar: { hideable: false, autoCollapseCategories: false } },
    navbar: {
      title: 'Mountain',
      logo: { alt: '', src: 'img/logo.svg', width: 28, height: 28 },
      items: [
        { type: 'docSidebar', sidebarId: 'tutorialSidebar', position: 'left', label: 'Documentation' },
        { type: 'docSidebar', sidebarId: 'servicesSidebar', position: 'left', label: 'Services' },
        { type: 'docSidebar', sidebarId: 'sdksSidebar', position: 'left', label: 'SDKs and Tools' },
        { to: '/api-reference', position: 'left', label: 'API Reference' },
      ],
    },
    footer: {
      style: 'dark',
      links: [
        {
          title: 'Learn',
          items: [
            { label: 'Getting Started', to: '/docs/getting-started/account-setup' },
            { label: 'Authentication', to: '/docs/authentication' },
          ],
        },
        {
          title: 'Reference',
          items: [
            { label: 'API Reference', to: '/api-reference' },
            { label: 'llms.txt', href: 'pathname:///llms.txt' },
          ],
        },
        {
          title: 'Support',
          items: [{ label: 'Contact support', href: 'mailto:support@mountain.dev' }],
        },
      ],
      copyright: `Copyright © ${new Date().getFullYear()} Mountain. Public API v3.`,
    },
    prism: {
      theme: prismTheme,
      darkTheme: prismTheme,
      additionalLanguages: ['bash'],
    },
  } satisfies Preset.ThemeConfig,
};

export default config;
