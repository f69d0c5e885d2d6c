import type { TransactionStatusValue } from '#api/schemas/entities.ts';
import type { TRANSACTION_EVENT_TYPES } from '#api/webhooks/eventTypes.ts';

// The table of the transaction state machine: every allowed status change, its cause and the event it writes. The
// statements that make the changes are lifecycle.ts's; the docs' diagram is drawn from this table (lifecycleDiagram.ts).

export type TransactionStatus = TransactionStatusValue;
export type TransactionEventType = (typeof TRANSACTION_EVENT_TYPES)[number];

/** Why a transaction moves: one cause, one target status, one or more statuses it may move from. */
export type Cause =
  | 'accepted'
  | 'nonce-allocated'
  | 'custodian-claimed'
  | 'estimate-reverted'
  | 'estimate-failed'
  | 'predecessor-failed'
  | 'funds-timeout'
  | 'rpc-unreachable'
  | 'no-sender'
  | 'send-later'
  | 'sent'
  | 'node-refused'
  | 'custodian-broadcast'
  | 'custodian-refused'
  | 'custodian-failed'
  | 'mined'
  | 'mined-reverted'
  | 'receipt-timeout'
  | 'custodian-failed-off-chain'
  | 'no-monitor'
  | 'reorg'
  | 'cancel-unsent'
  | 'cancel-sent'
  | 'cancel-mined'
  | 'cancel-blocked'
  | 'custodian-cancelled'
  | 'reorg-cancelling';

export interface Transition {
  /** null: the row's birth. */
  from: TransactionStatus | null;
  to: TransactionStatus;
  cause: Cause;
  /** The webhook event the change writes (the outbox trigger's choice), or null when it writes none. */
  emits: TransactionEventType | null;
  /** The cause in words, as the docs' lifecycle diagram says it. */
  says: string;
}

/** Every allowed status change. The docs' diagram is drawn from it (lifecycleDiagram.ts). */
export const TRANSITIONS: readonly Transition[] = [
  { from: null, to: 'created', cause: 'accepted', emits: null, says: 'execute-transaction (simulation passed)' },
  {
    from: 'created',
    to: 'processing',
    cause: 'nonce-allocated',
    emits: null,
    says: 'gas estimated, nonce allocated',
  },
  {
    from: 'created',
    to: 'processing',
    cause: 'custodian-claimed',
    emits: null,
    says: 'gas estimated and priced, for its custodian to sign and send',
  },
  {
    from: 'processing',
    to: 'created',
    cause: 'send-later',
    emits: null,
    says: 'nonce taken by another sender, base fee above the fees, or pool full',
  },
  {
    from: 'created',
    to: 'reverted',
    cause: 'estimate-reverted',
    emits: 'transaction.reverted',
    says: 'reverts when estimated before sending',
  },
  {
    from: 'created',
    to: 'broadcast-failed',
    cause: 'rpc-unreachable',
    emits: 'transaction.failed',
    says: 'RPC unreachable after the retries',
  },
  {
    from: 'created',
    to: 'broadcast-failed',
    cause: 'estimate-failed',
    emits: 'transaction.failed',
    says: 'gas estimation failed after the retries',
  },
  {
    from: 'created',
    to: 'broadcast-failed',
    cause: 'funds-timeout',
    emits: 'transaction.failed',
    says: 'the wallet could not pay for it within WAIT_FOR_FUNDS_SECONDS',
  },
  {
    from: 'created',
    to: 'broadcast-failed',
    cause: 'predecessor-failed',
    emits: 'transaction.failed',
    says: 'the transaction it waits for (afterTransactionId) ended without succeeding',
  },
  {
    from: 'created',
    to: 'broadcast-failed',
    cause: 'no-sender',
    emits: 'transaction.failed',
    says: 'no signer, custodian or RPC endpoint for its wallet and network',
  },
  { from: 'processing', to: 'broadcasted', cause: 'sent', emits: 'transaction.broadcasted', says: 'signed and sent' },
  {
    from: 'processing',
    to: 'broadcasted',
    cause: 'custodian-broadcast',
    emits: 'transaction.broadcasted',
    says: 'its custodian reports a hash',
  },
  {
    from: 'processing',
    to: 'broadcast-failed',
    cause: 'node-refused',
    emits: 'transaction.failed',
    says: 'refused by the node',
  },
  {
    from: 'processing',
    to: 'broadcast-failed',
    cause: 'rpc-unreachable',
    emits: 'transaction.failed',
    says: 'RPC unreachable after the retries',
  },
  {
    from: 'processing',
    to: 'broadcast-failed',
    cause: 'no-sender',
    emits: 'transaction.failed',
    says: 'no signer, custodian or RPC endpoint for its wallet and network',
  },
  {
    from: 'processing',
    to: 'broadcast-failed',
    cause: 'custodian-refused',
    emits: 'transaction.failed',
    says: 'refused by its custodian',
  },
  {
    from: 'processing',
    to: 'broadcast-failed',
    cause: 'custodian-failed',
    emits: 'transaction.failed',
    says: 'its custodian failed it before any hash',
  },
  { from: 'broadcasted', to: 'succeeded', cause: 'mined', emits: 'transaction.succeeded', says: 'mined, status 1' },
  {
    from: 'succeeded',
    to: 'broadcasted',
    cause: 'reorg',
    emits: 'transaction.reorged',
    says: 'a reorg removed its block',
  },
  {
    from: 'broadcasted',
    to: 'reverted',
    cause: 'mined-reverted',
    emits: 'transaction.reverted',
    says: 'mined, status 0',
  },
  {
    from: 'reverted',
    to: 'broadcasted',
    cause: 'reorg',
    emits: 'transaction.reorged',
    says: 'a reorg removed its block',
  },
  {
    from: 'broadcasted',
    to: 'monitor-failed',
    cause: 'receipt-timeout',
    emits: 'transaction.failed',
    says: 'no receipt in time',
  },
  {
    from: 'broadcasted',
    to: 'monitor-failed',
    cause: 'custodian-failed-off-chain',
    emits: 'transaction.failed',
    says: 'its custodian failed it, and neither a block nor the node has it',
  },
  {
    from: 'broadcasted',
    to: 'monitor-failed',
    cause: 'no-monitor',
    emits: 'transaction.failed',
    says: 'no RPC endpoint or custodian to follow it',
  },
  {
    from: 'created',
    to: 'cancelled',
    cause: 'cancel-unsent',
    emits: 'transaction.cancelled',
    says: 'cancel-transaction, or its deadline, before it was sent: never sent, no nonce used',
  },
  {
    from: 'processing',
    to: 'cancelled',
    cause: 'custodian-cancelled',
    emits: 'transaction.cancelled',
    says: 'cancel-transaction, or its deadline, while its custodian held it: cancelled there before signing',
  },
  {
    from: 'broadcasted',
    to: 'cancelling',
    cause: 'cancel-sent',
    emits: null,
    says: 'cancel-transaction, or its deadline, after it was sent: a 0-value transfer to itself at its nonce',
  },
  {
    from: 'cancelling',
    to: 'cancelled',
    cause: 'cancel-mined',
    emits: 'transaction.cancelled',
    says: 'the cancelling transfer is mined',
  },
  {
    from: 'cancelling',
    to: 'broadcasted',
    cause: 'cancel-blocked',
    emits: null,
    says: 'no cancelling transfer can outbid it under the fee cap',
  },
  {
    from: 'cancelling',
    to: 'succeeded',
    cause: 'mined',
    emits: 'transaction.succeeded',
    says: 'the original is mined first, status 1',
  },
  {
    from: 'cancelling',
    to: 'reverted',
    cause: 'mined-reverted',
    emits: 'transaction.reverted',
    says: 'the original is mined first, status 0',
  },
  {
    from: 'cancelling',
    to: 'monitor-failed',
    cause: 'receipt-timeout',
    emits: 'transaction.failed',
    says: 'no receipt in time',
  },
  {
    from: 'cancelling',
    to: 'monitor-failed',
    cause: 'no-monitor',
    emits: 'transaction.failed',
    says: 'no RPC endpoint or custodian to follow it',
  },
  {
    from: 'succeeded',
    to: 'cancelling',
    cause: 'reorg-cancelling',
    emits: 'transaction.reorged',
    says: 'a reorg removed the block of the original, mined before its cancel',
  },
  {
    from: 'reverted',
    to: 'cancelling',
    cause: 'reorg-cancelling',
    emits: 'transaction.reorged',
    says: 'a reorg removed the block of the original, mined before its cancel',
  },
  {
    from: 'cancelled',
    to: 'cancelling',
    cause: 'reorg-cancelling',
    emits: 'transaction.reorged',
    says: 'a reorg removed its block',
  },
];

/** The statuses a cause moves from, and the one it moves to. */
export function transitionOf(cause: Cause): { from: TransactionStatus[]; to: TransactionStatus } {
  const rows = TRANSITIONS.filter((t) => t.cause === cause);
  const to = rows[0]?.to;
  if (!to || rows.some((t) => t.to !== to)) throw new Error(`cause ${cause}: not exactly one target status`);
  return { from: rows.flatMap((t) => (t.from ? [t.from] : [])), to };
}
