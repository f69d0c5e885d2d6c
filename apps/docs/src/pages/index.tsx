import Link from '@docusaurus/Link';
import Heading from '@theme/Heading';
import Layout from '@theme/Layout';
import type { ReactNode } from 'react';
import styles from './index.module.css';

const FEATURES: { title: string; text: string; to: string }[] = [
  {
    title: 'Projects and keys',
    text: 'Each project has an API key and members with admin, editor or reader roles.',
    to: '/docs/authentication',
  },
  {
    title: 'System wallets',
    text: 'A mainnet and a testnet wallet per project sign your transactions; no key handling on your side.',
    to: '/docs/services/mountain-transactions/system-wallet',
  },
  {
    title: 'Smart contracts',
    text: 'Import a contract with a human-readable ABI and activate only the functions you mean to call.',
    to: '/docs/services/mountain-smart-contracts/overview',
  },
  {
    title: 'Transactions',
    text: 'Execute activated functions on chain with idempotency keys, nonce management and fee bumping.',
    to: '/docs/services/mountain-transactions/overview',
  },
  {
    title: 'Event notifier',
    text: 'Subscribe to a contract event; Mountain scans blocks and delivers signed webhooks with retries.',
    to: '/docs/services/mountain-events/overview',
  },
  {
    title: 'SDKs',
    text: 'A typed TypeScript client for the Public API and a webhook SDK that verifies signatures.',
    to: '/docs/sdks-tools/public-api-client/overview',
  },
];

const SAMPLE = `curl http://127.0.0.1:8080/public-api/v3/project/get-project-detail \\
  -H "X-API-Key: $MOUNTAIN_API_KEY"`;

export default function Home(): ReactNode {
  return (
    <Layout description="Mountain is a blockchain infrastructure platform: call one REST API to run contract functions from managed wallets and receive contract events as signed webhooks.">
      <main>
        <header className={styles.hero}>
          <div className="container">
            <h1 className={styles.title}>Blockchain infrastructure for developers</h1>
            <p className={styles.lead}>
              Mountain runs the on-chain side of your product. Import a contract, activate the functions you need, and
              execute them from your project’s managed wallets with one REST call. Subscribe to contract events and
              receive them as signed webhooks.
            </p>
            <div className={styles.actions}>
              <Link className="button button--primary button--lg" to="/docs/getting-started/account-setup">
                Getting Started
              </Link>
              <Link className="button button--secondary button--outline button--lg" to="/api-reference">
                API Reference
              </Link>
            </div>
            <pre className={styles.sample}>
              <code>{SAMPLE}</code>
            </pre>
          </div>
        </header>
        <section className="container" aria-labelledby="what-you-get">
          <Heading as="h2" id="what-you-get" className={styles.sectionTitle}>
            What the platform does
          </Heading>
          <ul className={styles.features}>
            {FEATURES.map((feature) => (
              <li key={feature.title} className={styles.feature}>
                <h3 className={styles.featureTitle}>
                  <Link to={feature.to}>{feature.title}</Link>
                </h3>
                <p>{feature.text}</p>
              </li>
            ))}
          </ul>
        </section>
      </main>
    </Layout>
  );
}
