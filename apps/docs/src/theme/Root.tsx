import Head from '@docusaurus/Head';
import { useHistory, useLocation } from '@docusaurus/router';
import { type ReactNode, useEffect } from 'react';

const HTML_SUFFIX = /(?:\/index)?\.html$/;

// The theme's colour mode follows the `theme` key of localStorage whenever it changes (a `storage` event), even with
// its switch disabled: a page of this origin writing `theme=light` in one tab (an older build of the site, which had
// a switch, or any script) would turn every other open page light, and persist it. The site is dark only: those
// events stop here, before the theme's listener (this module runs before the app renders, so its listener comes
// first).
if (typeof window !== 'undefined') {
  window.addEventListener(
    'storage',
    (event) => {
      if (event.key === 'theme') event.stopImmediatePropagation();
    },
    { capture: true },
  );
}

/**
 * Wraps the whole app.
 * - Pins `data-theme="dark"` into the server-rendered `<html>`, so a page is dark before any script runs (and with
 *   scripts disabled); the theme's inline script would otherwise only set it while the page loads. Another tab's
 *   stored theme is ignored (above).
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
