// Sends one signed delivery the way Mountain does (same `sign` function), so the samples can run on their own.
import { sign, type WebhookEvent } from '@mountain/webhook-sdk';

export const testEvent: WebhookEvent = {
  type: 'event_notifier.event',
  timestamp: '2025-01-02T03:04:05.000Z',
  data: {
    recordId: '6f1c2b4e-8a3d-4e5f-9b7a-1c2d3e4f5a6b',
    subscription: { id: '0b6e2f8c-3d4a-4b5c-8d6e-7f8091a2b3c4', name: 'Transfers', projectId: 1 },
    network: { id: 1337, name: 'anvil' },
    contractAddress: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    event: { name: 'Transfer', signature: 'Transfer(address,address,uint256)' },
    decodedLog: {
      from: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      value: '1000000000000000000',
    },
    blockNumber: 42,
    blockHash: '0x3f1c6a2b9d8e7f60514233a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8',
    blockTimestamp: '2025-01-02T03:04:00.000Z',
    transactionHash: '0x8a1f4b6a2f3c9d0e1b2c3d4e5f60718293a4b5c6d7e8f9011223344556677889',
    transactionIndex: 0,
    logIndex: 3,
  },
};

/** Builds the signed `Request` Mountain would send to `url`. */
export async function testDelivery(url: string, secret: string): Promise<Request> {
  // Pretty-printed on purpose: receivers must verify the bytes they got, not a re-serialisation.
  const body = JSON.stringify(testEvent, null, 2);
  const headers = await sign({ id: 'msg_example_1', body, secret });
  return new Request(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
}

/** POSTs a signed test delivery to `url` and prints the answer's status. */
export async function sendTestDelivery(url: string, secret: string): Promise<void> {
  const response = await fetch(await testDelivery(url, secret));
  console.log(`Test delivery answered ${response.status}`);
}
