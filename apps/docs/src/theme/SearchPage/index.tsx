import Head from '@docusaurus/Head';
import { useLocation } from '@docusaurus/router';
import useDocusaurusContext from '@docusaurus/useDocusaurusContext';
import SearchPage from '@theme-original/SearchPage';
import type { ReactNode } from 'react';

/**
 * The local search plugin's results page sets a bare `<title>`; this gives it the site's title rule
 * ("Page | Mountain", SPEC §2). The later `<Head>` wins. Its results are found in the browser, so the page asks for
 * the runtime at once.
 */
export default function SearchPageWithSiteTitle(): ReactNode {
  const { siteConfig } = useDocusaurusContext();
  const query = new URLSearchParams(useLocation().search).get('q');
  const page = query ? `Search results for "${query}"` : 'Search the documentation';
  return (
    <>
      <SearchPage />
      <Head>
        <title>{`${page} | ${siteConfig.title}`}</title>
        {/* The results are found in the browser: the runtime loads with the page (plugins/deferred-runtime). */}
        <meta name="mountain:runtime" content="at-once" />
      </Head>
    </>
  );
}
