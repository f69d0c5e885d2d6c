// What a reader should find on the site (SPEC §2): every route with its page title and main heading, and the
// pages of each sidebar in order.

export const SITE_TITLE = 'Mountain';

export interface RouteExpectation {
  path: string;
  /** The document title: "Page | Mountain", or only "Mountain" for the home page. */
  title: string;
  h1: string | RegExp;
  /** Where the browser ends up when the route forwards (the docs root). */
  finalPath?: string;
}

const doc = (path: string, title: string, h1 = title): RouteExpectation => ({
  path: `/docs/${path}`,
  title: `${title} | ${SITE_TITLE}`,
  h1,
});

export const TUTORIAL_DOCS = [
  doc('intro', 'Introduction'),
  doc('authentication', 'Authentication'),
  doc('api-operations', 'API operations'),
  doc('getting-started/account-setup', 'Account setup'),
  doc('getting-started/first-api-call', 'First API call'),
  doc('operations/overview', 'Operations overview', 'Operations'),
  doc('operations/deploying', 'Deploying'),
  doc('operations/configuration', 'Configuration'),
  doc('operations/scaling', 'Scaling'),
  doc('operations/metrics-and-alerts', 'Metrics and alerts'),
  doc('operations/logs', 'Logs'),
  doc('operations/upgrades-and-migrations', 'Upgrades and migrations'),
  doc('operations/rotating-secrets', 'Rotating secrets'),
  doc('operations/backups-and-keys', 'Backups and keys'),
  doc('operations/design-decisions', 'Design decisions'),
  doc('operations/reliability-checks', 'Reliability checks'),
];

export const SDK_DOCS = [
  doc('sdks-tools/public-api-client/overview', 'Public API client overview', 'Public API client'),
  doc(
    'sdks-tools/public-api-client/getting-started',
    'Public API client getting started',
    'Getting started with the client',
  ),
  doc('sdks-tools/webhook-sdk/overview', 'Webhook SDK overview', 'Webhook SDK'),
  doc('sdks-tools/webhook-sdk/implementation', 'Webhook SDK implementation', 'Implementation'),
  doc('sdks-tools/webhook-sdk/event-structure', 'Webhook event structure', 'Event structure'),
  doc('sdks-tools/webhook-sdk/security', 'Webhook security', 'Security'),
  doc('sdks-tools/webhook-sdk/best-practices', 'Webhook best practices', 'Best practices'),
  doc('sdks-tools/console', 'Developer console'),
];

export const SERVICE_DOCS = [
  doc('services/mountain-events/overview', 'Mountain Events overview', 'Mountain Events'),
  doc('services/mountain-events/getting-started', 'Mountain Events getting started', 'Getting started with events'),
  doc('services/mountain-events/watching', 'Events, contracts and filters'),
  doc('services/mountain-events/implementation', 'Mountain Events implementation', 'Implementation'),
  doc('services/mountain-events/management', 'Mountain Events management', 'Management'),
  doc('services/mountain-events/abi-format', 'Event ABI format'),
  doc('services/mountain-events/event-data', 'Event data'),
  doc('services/mountain-smart-contracts/overview', 'Mountain Smart Contracts overview', 'Mountain Smart Contracts'),
  doc('services/mountain-smart-contracts/contract-import', 'Contract import'),
  doc('services/mountain-smart-contracts/function-management', 'Function management'),
  doc('services/mountain-smart-contracts/reading-contracts', 'Reading contracts'),
  doc('services/mountain-smart-contracts/abi-format', 'Contract ABI format'),
  doc('services/mountain-smart-contracts/best-practices', 'Smart contracts best practices', 'Best practices'),
  doc('services/mountain-transactions/overview', 'Mountain Transactions overview', 'Mountain Transactions'),
  doc(
    'services/mountain-transactions/getting-started',
    'Mountain Transactions getting started',
    'Getting started with transactions',
  ),
  doc('services/mountain-transactions/transaction-lifecycle', 'Transaction lifecycle'),
  doc('services/mountain-transactions/payments', 'Payments and native transfers'),
  doc('services/mountain-transactions/system-wallet', 'System wallet'),
  doc('services/mountain-transactions/wallet-pools', 'Throughput and wallet pools'),
  doc('services/mountain-transactions/fireblocks-wallets', 'Fireblocks wallets'),
  doc('services/mountain-transactions/kms-wallets', 'AWS KMS wallets'),
  doc('services/mountain-transactions/webhooks', 'Webhook endpoints'),
  doc('services/mountain-transactions/best-practices', 'Transactions best practices', 'Best practices'),
];

export const SIDEBARS: Record<'tutorialSidebar' | 'sdksSidebar' | 'servicesSidebar', RouteExpectation[]> = {
  tutorialSidebar: TUTORIAL_DOCS,
  sdksSidebar: SDK_DOCS,
  servicesSidebar: SERVICE_DOCS,
};

export const ROUTES: RouteExpectation[] = [
  { path: '/', title: SITE_TITLE, h1: 'Blockchain infrastructure for developers' },
  { path: '/docs', title: `Introduction | ${SITE_TITLE}`, h1: 'Introduction', finalPath: '/docs/intro' },
  { path: '/api-reference', title: `API Reference | ${SITE_TITLE}`, h1: /^Public API for Developers\s*3\.0$/ },
  { path: '/markdown-page', title: `Documentation conventions | ${SITE_TITLE}`, h1: 'Documentation conventions' },
  ...TUTORIAL_DOCS,
  ...SDK_DOCS,
  ...SERVICE_DOCS,
];

export const OPERATION_IDS = [
  'get-projects',
  'get-project-detail',
  'get-project-members',
  'rotate-api-key',
  'get-statistics',
  'get-wallet-balances',
  'add-system-wallets',
  'exchange-console-link',
  'exchange-api-key',
  'renew-access-token',
  'revoke-access-token',
  'create-subscription',
  'get-subscriptions',
  'update-subscription-webhook',
  'update-subscription-scan',
  'update-subscription',
  'rewind-subscription',
  'delete-subscription',
  'get-records',
  'resend-failed-webhook',
  'get-contracts',
  'import-contract',
  'activate-contract-function',
  'deactivate-contract-function',
  'get-contract-activated-functions',
  'call-contract-function',
  'execute-transaction',
  'get-transaction',
  'get-transactions',
  'speed-up-transaction',
  'cancel-transaction',
  'create-webhook-endpoint',
  'get-webhook-endpoints',
  'update-webhook-endpoint',
  'delete-webhook-endpoint',
  'rotate-webhook-endpoint-secret',
  'get-webhook-messages',
  'get-webhook-attempts',
  'replay-webhook-messages',
  'rotate-subscription-webhook-secret',
];
