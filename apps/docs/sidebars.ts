import type { SidebarsConfig } from '@docusaurus/plugin-content-docs';

// Three sidebars, one per navbar entry (SPEC §2). Categories have no index page of their own, so the docs are
// the 28 pages of the spec, and the pages the product added since (Fireblocks and AWS KMS wallets, wallet
// pools, webhook endpoints, the developer console, the operations guide).
const sidebars: SidebarsConfig = {
  tutorialSidebar: [
    'intro',
    'authentication',
    'api-operations',
    {
      type: 'category',
      label: 'Getting started',
      collapsed: false,
      items: ['getting-started/account-setup', 'getting-started/first-api-call'],
    },
    {
      type: 'category',
      label: 'Operations',
      collapsed: false,
      items: [
        'operations/overview',
        'operations/deploying',
        'operations/configuration',
        'operations/scaling',
        'operations/metrics-and-alerts',
        'operations/logs',
        'operations/upgrades-and-migrations',
        'operations/rotating-secrets',
        'operations/backups-and-keys',
        'operations/design-decisions',
        'operations/reliability-checks',
      ],
    },
  ],
  sdksSidebar: [
    {
      type: 'category',
      label: 'Public API client',
      collapsed: false,
      items: ['sdks-tools/public-api-client/overview', 'sdks-tools/public-api-client/getting-started'],
    },
    {
      type: 'category',
      label: 'Webhook SDK',
      collapsed: false,
      items: [
        'sdks-tools/webhook-sdk/overview',
        'sdks-tools/webhook-sdk/implementation',
        'sdks-tools/webhook-sdk/event-structure',
        'sdks-tools/webhook-sdk/security',
        'sdks-tools/webhook-sdk/best-practices',
      ],
    },
    'sdks-tools/console',
  ],
  servicesSidebar: [
    {
      type: 'category',
      label: 'Mountain Events',
      collapsed: false,
      items: [
        'services/mountain-events/overview',
        'services/mountain-events/getting-started',
        'services/mountain-events/watching',
        'services/mountain-events/implementation',
        'services/mountain-events/management',
        'services/mountain-events/abi-format',
        'services/mountain-events/event-data',
      ],
    },
    {
      type: 'category',
      label: 'Mountain Smart Contracts',
      collapsed: false,
      items: [
        'services/mountain-smart-contracts/overview',
        'services/mountain-smart-contracts/contract-import',
        'services/mountain-smart-contracts/function-management',
        'services/mountain-smart-contracts/reading-contracts',
        'services/mountain-smart-contracts/abi-format',
        'services/mountain-smart-contracts/best-practices',
      ],
    },
    {
      type: 'category',
      label: 'Mountain Transactions',
      collapsed: false,
      items: [
        'services/mountain-transactions/overview',
        'services/mountain-transactions/getting-started',
        'services/mountain-transactions/transaction-lifecycle',
        'services/mountain-transactions/payments',
        'services/mountain-transactions/system-wallet',
        'services/mountain-transactions/wallet-pools',
        'services/mountain-transactions/fireblocks-wallets',
        'services/mountain-transactions/kms-wallets',
        'services/mountain-transactions/webhooks',
        'services/mountain-transactions/best-practices',
      ],
    },
  ],
};

export default sidebars;
