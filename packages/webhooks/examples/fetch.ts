// Receive Mountain webhooks with a Web-standard handler: (request: Request) => Promise<Response>.
// It runs unchanged in Deno, Bun, Cloudflare and other edge workers, and Next.js or Hono route handlers:
//   Deno:                 Deno.serve({ port: 3000 }, handler);
//   Bun / workers:        export default { fetch: handler };
//   Next.js app router:   export const POST = handler;
// Run: node --import tsx fetch.ts   (Node has no fetch server, so this calls the handler with a signed Request,
//                                     the way those runtimes do)
import { createFetchHandler, generateSecret } from '@mountain/webhook-sdk';
import { testDelivery } from './sendTestDelivery.ts';

const secret = process.env.MOUNTAIN_WEBHOOK_SECRET ?? generateSecret();

const handler = createFetchHandler(secret, async (event, { id }) => {
  const { event: abiEvent, blockNumber, decodedLog } = event.data;
  console.log(`${abiEvent.name} in block ${blockNumber}: ${JSON.stringify(decodedLog)} (webhook-id ${id})`);
});

const response = await handler(await testDelivery('https://receiver.example/webhooks', secret));
console.log(`Test delivery answered ${response.status}`);
