import Link from '@docusaurus/Link';
import Heading from '@theme/Heading';
import clsx from 'clsx';
import type { ReactNode } from 'react';

/** The not-found page: says so plainly and offers the pages people usually look for. */
export default function NotFoundContent({ className }: { className?: string }): ReactNode {
  return (
    <main className={clsx('container margin-vert--xl', className)}>
      <div className="row">
        <div className="col col--8 col--offset-2">
          <Heading as="h1" className="hero__title">
            Page Not Found
          </Heading>
          <p>We could not find what you were looking for. The page may have moved, or the address has a typo.</p>
          <ul>
            <li>
              <Link to="/docs/intro">Introduction</Link> — what Mountain does and how the docs are organised
            </li>
            <li>
              <Link to="/docs/getting-started/account-setup">Getting Started</Link> — a project, a key and a first call
            </li>
            <li>
              <Link to="/api-reference">API Reference</Link> — every operation of the Public API
            </li>
          </ul>
          <p>
            If a link on this site brought you here, tell us at{' '}
            <a href="mailto:support@mountain.dev">support@mountain.dev</a>.
          </p>
        </div>
      </div>
    </main>
  );
}
