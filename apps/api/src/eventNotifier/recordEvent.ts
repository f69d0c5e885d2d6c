import type { WebhookEvent } from '@mountain/webhook-sdk';
import type { AbiEvent } from 'viem';
import { NETWORKS } from '#api/config/networks.ts';
import { eventSignature } from '#api/eventNotifier/abiEvent.ts';
import type { RecordRow, SubscriptionRow } from '#api/eventNotifier/rows.ts';

/** `Transfer` of `Transfer(address,address,uint256)`. */
export const nameOf = (signature: string) => signature.slice(0, signature.indexOf('('));

/**
 * The webhook of a record: `event_notifier.event`, or for a removal notice `event_notifier.event.removed` with the
 * data of the record it removes. `event` is the subscription's first event (formattedAbiEvent), parsed once by the
 * caller: most records are of it. The same for the subscription's own webhook and for project endpoints.
 */
export function recordEvent(subscription: SubscriptionRow, event: AbiEvent, record: RecordRow): WebhookEvent {
  const network = NETWORKS.find((n) => n.id === subscription.network_id);
  return {
    type: record.removal_of ? 'event_notifier.event.removed' : 'event_notifier.event',
    timestamp: record.created_at.toISOString(),
    data: {
      recordId: record.removal_of ?? record.id,
      subscription: { id: subscription.id, name: subscription.subscription_name, projectId: subscription.project_id },
      network: { id: subscription.network_id, name: network?.name ?? String(subscription.network_id) },
      contractAddress: record.contract_address ?? subscription.address,
      event: record.event_signature
        ? { name: nameOf(record.event_signature), signature: record.event_signature }
        : { name: event.name, signature: eventSignature(event) },
      decodedLog: record.decoded_log,
      blockNumber: record.block_number,
      blockHash: record.block_hash,
      blockTimestamp: record.block_timestamp.toISOString(),
      transactionHash: record.transaction_hash,
      transactionIndex: record.transaction_index,
      logIndex: record.log_index,
    },
  };
}
