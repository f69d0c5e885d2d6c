// Receive Mountain webhooks with Node's built-in http server.
// Run: MOUNTAIN_WEBHOOK_SECRET=whsec_… node --import tsx node-http.ts        (serves until stopped)
//      node --import tsx node-http.ts --once   (sends itself one signed test delivery, then exits)
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeHandler, generateSecret } from '@mountain/webhook-sdk';
import { sendTestDelivery } from './sendTestDelivery.ts';

const once = process.argv.includes('--once');
// The subscription's `webhookSecret`, as the create-subscription response returned it.
const secret = process.env.MOUNTAIN_WEBHOOK_SECRET ?? generateSecret();

const handleWebhook = createNodeHandler(secret, async (event, { id }) => {
  // `id` is the same on every retry of a delivery: use it to process each delivery once.
  const { event: abiEvent, blockNumber, decodedLog } = event.data;
  console.log(`${abiEvent.name} in block ${blockNumber}: ${JSON.stringify(decodedLog)} (webhook-id ${id})`);
});

const server = createServer((req, res) => {
  // The handler reads the raw body itself: put no body parser in front of it.
  if (req.url === '/webhooks') void handleWebhook(req, res);
  else res.writeHead(404).end();
});

server.listen(once ? 0 : Number(process.env.PORT ?? 3000), '127.0.0.1', async () => {
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  console.log(`Listening on ${url}`);
  if (once) {
    await sendTestDelivery(url, secret);
    server.close();
  }
});
