import Head from '@docusaurus/Head';
import { useHistory, useLocation } from '@docusaurus/router';
import { type ReactNode, useEffect } from 'react';

const HTML_SUFFIX = /(?:\/index)?\.html$/;

/**
 * Wraps the whole app.
 * - Pins `data-theme="dark"` into the server-rendered `<html>`, so a page is dark before any script runs (and with
 *   scripts disabled); the theme's inline script would otherwise only set it while the page loads.
 * - Strips a trailing `index.html` or `.html` from the address (SPEC §2). The router already renders the page
 *   without it; this makes the address bar agree.
 */
export default function Root({ children }: { children: ReactNode }): ReactNode {
  const location = useLocation();
  const history = useHistory();
  useEffect(() => {
    if (HTML_SUFFIX.test(location.pathname)) {
      const pathname = location.pathname.replace(HTML_SUFFIX, '') || '/';
      history.replace({ ...location, pathname });
    }
  }, [location, history]);
  return (
    <>
      <Head>
        <html lang="en" data-theme="dark" data-theme-choice="dark" />
        <meta name="color-scheme" content="dark" />
      </Head>
      {children}
    </>
  );
}
