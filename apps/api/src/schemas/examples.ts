import { DEFAULT_WALLET_TYPE } from '#api/wallets/custodians.ts';
/** Example values shared by the operations' documented requests and answers. */
export const EXAMPLE = {
  apiKeyMasked: 'mtn_test_4fQ9xZ2mLp7a********',
  contractAddress: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  walletMainnet: '0x9C3f2A4e1b7D0c5E8a6F1B2c3D4e5F6a7B8c9D0e',
  walletTestnet: '0x1A2b3C4d5E6f7A8b9C0d1E2f3A4b5C6d7E8f9A0b',
  walletPool: '0x5B38Da6a701c568545dCfcB03FcB875f56beddC4',
  subscriptionId: '6f1c2b7e-3d4a-4e8b-9c1d-2a3b4c5d6e7f',
  recordId: '0b9e8d7c-6a5b-4c3d-8e2f-1a0b9c8d7e6f',
  transactionId: '3e7a9c1b-2d4f-4a6b-8c0d-e1f2a3b4c5d6',
  transactionHash: '0x8a3c2f6e1d9b4a7c5e0f2d8b6a4c1e3f5a7b9c0d2e4f6a8b0c1d3e5f7a9b1c3d',
  timestamp: '2026-11-20T10:15:30.000Z',
  transferEvent: 'event Transfer(address indexed from, address indexed to, uint256 value)',
  mintFunction: 'function mint(address to, uint256 amount)',
} as const;

export const exampleProject = { id: 1, projectName: 'Acme Payments', apiKey: EXAMPLE.apiKeyMasked };

export const exampleContract = {
  id: 7,
  projectId: 1,
  networkId: 1337 as const,
  address: EXAMPLE.contractAddress,
  type: 'imported',
  formattedAbi: [
    EXAMPLE.mintFunction,
    'function balanceOf(address owner) view returns (uint256)',
    EXAMPLE.transferEvent,
  ],
};

export const exampleActivatedFunction = {
  id: 12,
  contractId: 7,
  formattedAbiFunction: EXAMPLE.mintFunction,
  maxValuePerTransaction: '0',
  maxValuePerDay: '0',
};

export const exampleSubscription = {
  id: EXAMPLE.subscriptionId,
  projectId: 1,
  subscriptionName: 'Token transfers',
  networkId: 1337 as const,
  address: EXAMPLE.contractAddress,
  formattedAbiEvent: EXAMPLE.transferEvent,
  addresses: [],
  formattedAbiEvents: [],
  filters: {},
  conditions: [],
  rewindFromBlock: null,
  scanEnabled: true,
  initialBlockNumber: 0,
  scanInterval: 5,
  confirmations: 0,
  webhookEnabled: true,
  webhookURL: 'https://example.com/webhooks/mountain',
  webhookMaxRetries: 5,
  webhookSecret: 'whsec_****************',
  webhookDisabledReason: null,
  webhookDisabledAt: null,
  webhookFailingSince: null,
  scanStatus: 'idle' as const,
  lastScannedBlock: 1520,
  lastScannedAt: EXAMPLE.timestamp,
  lastScanFailureMessage: null,
  nextScanAt: '2026-11-20T10:15:35.000Z',
};

export const exampleRecord = {
  id: EXAMPLE.recordId,
  eventNotifierSubscriptionId: EXAMPLE.subscriptionId,
  contractAddress: EXAMPLE.contractAddress,
  eventName: 'Transfer',
  eventSignature: 'Transfer(address,address,uint256)',
  status: 'notified' as const,
  statusChangedAt: EXAMPLE.timestamp,
  blockTimestamp: '2026-11-20T10:15:28.000Z',
  transactionHash: EXAMPLE.transactionHash,
  blockNumber: 1518,
  blockHash: '0x5d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e',
  transactionIndex: 0,
  logIndex: 1,
  decodedLog: {
    from: '0x0000000000000000000000000000000000000000',
    to: EXAMPLE.walletTestnet,
    value: '1000000000000000000',
  },
  lastNotificationFailedAt: null,
  lastNotificationFailureMessage: null,
  notificationFailureCount: 0,
  removed: false,
  removedAt: null,
  createdAt: EXAMPLE.timestamp,
  updatedAt: EXAMPLE.timestamp,
};

export const exampleTransaction = {
  id: EXAMPLE.transactionId,
  projectId: 1,
  contractActivatedFunctionId: 12,
  mSystemWalletId: 2,
  networkId: 1337 as const,
  functionArgs: [EXAMPLE.walletTestnet, '1000000000000000000'],
  value: '0',
  afterTransactionId: null,
  expiresAt: null,
  orderingKey: null,
  status: 'succeeded' as const,
  transactionHash: EXAMPLE.transactionHash,
  nonce: 4,
  gasPrice: '1875000000',
  gasLimit: '61234',
  gasUsed: '51028',
  blockNumber: 1518,
  confirmations: 70,
  finalized: true,
  errorMessage: null,
  idempotencyKey: 'order-2026-11-20-0001',
  custody: null,
  createdAt: EXAMPLE.timestamp,
  updatedAt: '2026-11-20T10:15:31.000Z',
};

/** A dedicated from-mnemonic system wallet, as answers show one. */
export const exampleWallet = (id: number, address: string, networkType: 'mainnet' | 'testnet') => ({
  id,
  address,
  type: DEFAULT_WALLET_TYPE,
  networkType,
  ownerType: 'dedicated' as const,
  custody: null,
});

export const exampleWallets = {
  mainnet: exampleWallet(1, EXAMPLE.walletMainnet, 'mainnet'),
  testnet: exampleWallet(2, EXAMPLE.walletTestnet, 'testnet'),
};
