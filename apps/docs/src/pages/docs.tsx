import Head from '@docusaurus/Head';
import Link from '@docusaurus/Link';
import { useHistory } from '@docusaurus/router';
import Layout from '@theme/Layout';
import { type ReactNode, useEffect } from 'react';

const MAIN_DOC = '/docs/intro';

/**
 * The docs root: its main doc is the introduction (SPEC §2). The page forwards to it at once, in the browser
 * and, through the refresh header, without scripts; search engines are pointed at the intro as canonical.
 */
export default function DocsRoot(): ReactNode {
  const history = useHistory();
  useEffect(() => {
    history.replace(`${MAIN_DOC}${window.location.hash}`);
  }, [history]);
  return (
    <Layout title="Introduction" description="Mountain documentation: start with the introduction.">
      <Head>
        <meta httpEquiv="refresh" content={`0; url=${MAIN_DOC}`} />
        <link rel="canonical" href={`https://docs.mountain.dev${MAIN_DOC}`} />
      </Head>
      <main className="container margin-vert--xl">
        <h1>Mountain documentation</h1>
        <p>
          The documentation starts with the <Link to={MAIN_DOC}>Introduction</Link>.
        </p>
      </main>
    </Layout>
  );
}
