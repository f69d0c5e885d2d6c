import Type from 'typebox';
import { NETWORK_IDS, NETWORKS, type NetworkId } from '#api/config/networks.ts';
import { custodianOf, SUBMITTER_TYPES, WALLET_TYPES, type WalletType } from '#api/wallets/custodians.ts';
import { component } from './components.ts';

const nullable = <T extends Type.TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const DateTime = (description: string) => Type.String({ format: 'date-time', description });

export const NetworkIdSchema = component(
  'NetworkId',
  Type.Unsafe<NetworkId>({
    type: 'integer',
    enum: NETWORK_IDS,
    description: `Chain id of a supported network: ${NETWORKS.map((n) => `${n.id} (${n.name}, ${n.networkType})`).join(', ')}.`,
    example: 1337,
  }),
);

export const AddressSchema = Type.String({
  pattern: '^0x[0-9a-fA-F]{40}$',
  maxLength: 256,
  description: 'An EVM address: 0x followed by 40 hex digits. Answers give it checksummed (EIP-55).',
  example: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
});

export const UuidSchema = (description: string) => Type.String({ format: 'uuid', description });

export const Project = component(
  'Project',
  Type.Object({
    id: Type.Integer({ description: 'Project id.', example: 1 }),
    projectName: Type.String({ maxLength: 256, description: 'Name of the project.' }),
    apiKey: Type.String({
      maxLength: 64,
      description: 'The project API key, masked. The full key is shown only once, when it is issued.',
    }),
  }),
);

export const SystemWallet = component(
  'SystemWallet',
  Type.Object({
    id: Type.Integer({ description: 'Wallet id.' }),
    address: Type.String({ description: 'Checksummed address that signs the project’s transactions.' }),
    type: Type.Unsafe<WalletType>({
      type: 'string',
      enum: WALLET_TYPES,
      description:
        'Custody: derived from the deployment mnemonic, held by Fireblocks, or a key in AWS KMS that never leaves it (the platform asks KMS for each signature).',
    }),
    networkType: Type.Union([Type.Literal('mainnet'), Type.Literal('testnet')], {
      description: 'The networks this wallet signs for.',
    }),
    ownerType: Type.Union([Type.Literal('shared'), Type.Literal('dedicated')], {
      description: 'dedicated: this project’s own wallet; shared: a platform wallet used by many projects.',
    }),
    custody: nullable(
      // Each custodian's view, as the registry gives it.
      Type.Union(WALLET_TYPES.flatMap((type) => custodianOf(type).view?.schema ?? []) as [Type.TSchema]),
    ),
  }),
);

export const ProjectDetail = component(
  'ProjectDetail',
  Type.Object({
    project: Project,
    mSystemWalletMainnet: SystemWallet,
    mSystemWalletTestnet: SystemWallet,
    mSystemWallets: Type.Array(SystemWallet, {
      description:
        'Every system wallet of the project: the two primary wallets above first, then the others of its pools (`add-system-wallets`), mainnet first, in the order they were added.',
    }),
  }),
);

export const RoleSchema = Type.Union([Type.Literal('admin'), Type.Literal('editor'), Type.Literal('reader')], {
  description: 'A project role: admin, editor or reader.',
});

export const Caller = Type.Object(
  {
    credential: Type.Union([Type.Literal('apiKey'), Type.Literal('accessToken')], {
      description:
        'How the request was authenticated: the project API key (or an access token exchanged for it: exchange-api-key), or a user access token.',
    }),
    role: RoleSchema,
  },
  { description: 'Who is calling: the credential, and the role it acts with (an API key acts as admin).' },
);

export const Member = component(
  'Member',
  Type.Object({
    userId: Type.Integer({ minimum: 1 }),
    email: Type.String(),
    name: Type.String(),
    role: RoleSchema,
    since: Type.String({ format: 'date-time', description: 'When the user joined the project, or took this role.' }),
  }),
);

export const PaginationMeta = component(
  'PaginationMeta',
  Type.Object({
    pageNumber: Type.Integer({ minimum: 1, description: 'The page returned, from 1.' }),
    perPage: Type.Integer({ minimum: 1, description: 'Items per page.' }),
    totalPage: Type.Integer({ minimum: 0, description: 'Number of pages.' }),
    totalItems: Type.Integer({ minimum: 0, description: 'Number of items over all pages.' }),
  }),
);

export const ScanStatus = Type.Union([Type.Literal('idle'), Type.Literal('scanning'), Type.Literal('failed')], {
  description: 'idle: waiting for the next scan; scanning: a scan is running; failed: the last scan failed.',
});

export const EventNotifierSubscription = component(
  'EventNotifierSubscription',
  Type.Object({
    id: UuidSchema('Subscription id.'),
    projectId: Type.Integer(),
    subscriptionName: Type.String({ maxLength: 256 }),
    networkId: NetworkIdSchema,
    address: Type.String({ description: 'Checksummed address of the contract whose events are scanned.' }),
    formattedAbiEvent: Type.String({ description: 'Human-readable ABI of the event, e.g. `event Transfer(…)`.' }),
    addresses: Type.Array(Type.String(), {
      description: 'The other contracts watched, checksummed (`[]`: `address` only).',
    }),
    formattedAbiEvents: Type.Array(Type.String(), { description: 'The other events watched (`[]`: one event).' }),
    filters: Type.Record(Type.String(), Type.Array(Type.Unknown()), {
      description:
        'Accepted values per indexed parameter, in their canonical form: strings (checksummed addresses, integers in decimal, bytes in lower case), or booleans for a bool (`{}`: none).',
    }),
    conditions: Type.Array(Type.Object({ field: Type.String(), op: Type.String(), value: Type.Unknown() }), {
      description: 'Conditions on decoded values, all of which must hold (`[]`: none).',
    }),
    rewindFromBlock: nullable(
      Type.Integer({
        description:
          'A rewind asked while a scan was running: the next scan starts there (`null` once applied, and when none is waiting).',
      }),
    ),
    scanEnabled: Type.Boolean(),
    initialBlockNumber: Type.Integer({ minimum: 0 }),
    scanInterval: Type.Integer({ minimum: 5, description: 'Seconds between scans.' }),
    confirmations: Type.Integer({
      minimum: 0,
      description: 'Blocks on top of an event’s block before it is recorded (the network’s depth unless chosen).',
    }),
    webhookEnabled: Type.Boolean(),
    webhookURL: nullable(Type.String({ format: 'uri' })),
    webhookMaxRetries: Type.Integer({ minimum: 0 }),
    webhookSecret: Type.String({
      description: 'Secret that signs webhooks (`whsec_…`). In full only in the create answer; masked elsewhere.',
    }),
    webhookDisabledReason: nullable(
      Type.String({
        description:
          'Why the platform disabled the webhook (every attempt failed for `WEBHOOK_DISABLE_AFTER_HOURS`); `null` otherwise. Enabling it again clears it.',
      }),
    ),
    webhookDisabledAt: nullable(DateTime('When the platform disabled the webhook.')),
    webhookFailingSince: nullable(
      DateTime('The first failed attempt since the last delivered one; `null` while attempts succeed.'),
    ),
    scanStatus: ScanStatus,
    lastScannedBlock: nullable(Type.Integer()),
    lastScannedAt: nullable(DateTime('When the last scan finished.')),
    lastScanFailureMessage: nullable(Type.String()),
    nextScanAt: nullable(DateTime('When the next scan is due.')),
  }),
);

export const RecordStatus = Type.Union([Type.Literal('scanned'), Type.Literal('notified'), Type.Literal('failed')], {
  description: 'scanned: stored, webhook pending or disabled; notified: webhook answered 2xx; failed: retries ran out.',
});

export const EventNotifierRecord = component(
  'EventNotifierRecord',
  Type.Object({
    id: UuidSchema('Record id; also the `webhook-id` of its deliveries.'),
    eventNotifierSubscriptionId: UuidSchema('The subscription that found this event.'),
    contractAddress: Type.String({
      maxLength: 42,
      description: 'The contract that emitted the event (checksummed): `address` or one of `addresses`.',
    }),
    eventName: Type.String({ maxLength: 256, description: 'The event’s name, e.g. `Transfer`.' }),
    eventSignature: Type.String({
      maxLength: 4096,
      description:
        'The event’s canonical signature, e.g. `Transfer(address,address,uint256)`: which of the subscription’s events this is.',
    }),
    status: RecordStatus,
    statusChangedAt: DateTime('When the status last changed.'),
    blockTimestamp: DateTime('Timestamp of the block holding the event.'),
    transactionHash: Type.String({ maxLength: 66 }),
    blockNumber: Type.Integer(),
    blockHash: nullable(
      Type.String({
        maxLength: 66,
        description:
          'Hash of the block holding the event: the block a reorg would replace. `null` only for records stored before block hashes were kept.',
      }),
    ),
    transactionIndex: Type.Integer(),
    logIndex: Type.Integer(),
    decodedLog: Type.Record(Type.String(), Type.Unknown(), {
      description: 'The decoded event arguments by name; integers as decimal strings.',
    }),
    lastNotificationFailedAt: nullable(DateTime('When the last delivery attempt failed.')),
    lastNotificationFailureMessage: nullable(Type.String()),
    notificationFailureCount: Type.Integer({ minimum: 0 }),
    removed: Type.Boolean({
      description:
        'true once a reorg took the event’s block off the canonical chain. A removed record is never delivered again; if it was delivered (or in delivery), an `event_notifier.event.removed` webhook follows.',
    }),
    removedAt: nullable(DateTime('When the platform saw the event’s block leave the canonical chain.')),
    createdAt: DateTime('When the record was stored.'),
    updatedAt: DateTime('When the record last changed.'),
  }),
);

export const Contract = component(
  'Contract',
  Type.Object({
    id: Type.Integer(),
    projectId: Type.Integer(),
    networkId: NetworkIdSchema,
    address: Type.String({ maxLength: 256, description: 'Checksummed contract address.' }),
    type: Type.String({ maxLength: 256, description: 'How the contract came to the project, e.g. `imported`.' }),
    formattedAbi: Type.Array(Type.String(), { description: 'Human-readable ABI, one entry per string.' }),
  }),
);

export const ContractActivatedFunction = component(
  'ContractActivatedFunction',
  Type.Object({
    id: Type.Integer(),
    contractId: Type.Integer(),
    formattedAbiFunction: Type.String({ description: 'Human-readable ABI of the function.' }),
    maxValuePerTransaction: Type.String({
      description:
        'The most value (wei, decimal string) one transaction of this function may send; "0": none (a function that is not payable always shows "0").',
    }),
    maxValuePerDay: Type.String({
      description:
        'The most value (wei, decimal string) the transactions of this function may send in one UTC day, all together; every accepted transaction counts but those that ended without being mined.',
    }),
  }),
);

export const TRANSACTION_STATUSES = [
  'created',
  'processing',
  'broadcasted',
  'succeeded',
  'broadcast-failed',
  'monitor-failed',
  'reverted',
  'cancelling',
  'cancelled',
] as const;

export type TransactionStatusValue = (typeof TRANSACTION_STATUSES)[number];

export const TransactionStatus = Type.Unsafe<TransactionStatusValue>({
  type: 'string',
  enum: [...TRANSACTION_STATUSES],
  description:
    "Lifecycle: created → processing → broadcasted → succeeded | reverted; failures broadcast-failed and monitor-failed; cancel-transaction or a deadline: created → cancelled, or broadcasted → cancelling → cancelled (or the original's outcome, if the original is mined first). Coarse view: created, broadcasted, succeeded, failed (= broadcast-failed, monitor-failed, reverted), cancelled.",
});

export const Transaction = component(
  'Transaction',
  Type.Object({
    id: UuidSchema('Transaction id.'),
    projectId: Type.Integer(),
    contractActivatedFunctionId: Type.Integer(),
    mSystemWalletId: Type.Integer({ description: 'The system wallet that signs it.' }),
    networkId: NetworkIdSchema,
    functionArgs: Type.Array(Type.String()),
    value: Type.String({ description: 'The value it sends, in wei, as a decimal string ("0" for none).' }),
    status: TransactionStatus,
    transactionHash: nullable(Type.String({ maxLength: 66 })),
    nonce: nullable(Type.Integer()),
    gasPrice: nullable(Type.String({ description: 'Effective gas price in wei, as a decimal string.' })),
    gasLimit: nullable(Type.String({ description: 'Gas limit, as a decimal string.' })),
    gasUsed: nullable(Type.String({ description: 'Gas used, as a decimal string, once mined.' })),
    blockNumber: nullable(Type.Integer()),
    confirmations: nullable(
      Type.Integer({
        minimum: 0,
        description:
          'Blocks on top of the block that holds it (0 in the newest block), counted from the newest head the platform has seen; null until mined. A reorg that takes the block away makes it null again.',
      }),
    ),
    finalized: Type.Boolean({
      description:
        "Its block is at or below the network's `finalized` block (or, on a network without that tag, has its confirmation depth on top): the chain will not take it back. Act on this for irreversible business steps.",
    }),
    errorMessage: nullable(Type.String()),
    idempotencyKey: Type.String(),
    afterTransactionId: nullable(
      UuidSchema(
        'The transaction this one waits for: it is estimated and sent only once that one has succeeded, and ends broadcast-failed, never sent, if that one ends any other way. null when it waits for none.',
      ),
    ),
    expiresAt: nullable(
      DateTime(
        "Its deadline (execute-transaction's timeoutSeconds): not mined by then, it is cancelled as cancel-transaction does, its errorMessage saying it timed out. null without one.",
      ),
    ),
    orderingKey: nullable(
      Type.String({
        description:
          'Its ordering key (execute-transaction): the project’s transactions with the same key go through one wallet, in acceptance order. null without one.',
      }),
    ),
    custody: nullable(
      component(
        'TransactionCustody',
        Type.Object(
          {
            provider: Type.Unsafe<WalletType>({
              type: 'string',
              enum: SUBMITTER_TYPES,
              description: 'The custodian that signs and broadcasts it.',
            }),
            id: nullable(
              Type.String({ description: "The custodian's transaction id; null until it has taken the transaction." }),
            ),
            status: nullable(
              Type.String({
                description:
                  "The custodian's status as it last said (Fireblocks: SUBMITTED, PENDING_AUTHORIZATION, QUEUED, PENDING_SIGNATURE, BROADCASTING, CONFIRMING, COMPLETED, REJECTED, BLOCKED, CANCELLED, FAILED…). The transaction's own `status` follows the chain, not this.",
              }),
            ),
            subStatus: nullable(
              Type.String({
                description: "The custodian's sub-status (Fireblocks: BLOCKED_BY_POLICY, INSUFFICIENT_FUNDS…).",
              }),
            ),
          },
          {
            description:
              'For a wallet kept by a custodian that signs and broadcasts itself (Fireblocks): its view of the transaction. null for wallets the platform signs for.',
          },
        ),
      ),
    ),
    createdAt: DateTime('When the transaction was accepted.'),
    updatedAt: DateTime('When it last changed.'),
  }),
);

export const ErrorSchema = component(
  'Error',
  Type.Object({
    statusCode: Type.Integer({ description: 'The HTTP status.' }),
    error: Type.String({ description: 'The HTTP reason phrase.' }),
    code: Type.String({ description: 'Stable error code from the error catalogue.' }),
    message: Type.String({ description: 'What went wrong, for a person.' }),
    details: Type.Optional(
      Type.Array(
        Type.Object({
          field: Type.String({ description: 'Where: `body.…`, `querystring.…` or `headers.…`.' }),
          message: Type.String(),
        }),
        { description: 'Each wrong field (validation errors).' },
      ),
    ),
    requiredRoles: Type.Optional(
      Type.Array(Type.String(), { description: 'The roles that may call the operation (403).' }),
    ),
  }),
);
