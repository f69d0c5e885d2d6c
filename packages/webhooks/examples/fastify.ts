// Receive Mountain webhooks in a Fastify 4 or 5 app.
// Run: MOUNTAIN_WEBHOOK_SECRET=whsec_… node --import tsx fastify.ts         (serves until stopped)
//      node --import tsx fastify.ts --once   (sends itself one signed test delivery, then exits)
import { createFastifyPlugin, generateSecret } from '@mountain/webhook-sdk';
import Fastify from 'fastify';
import { sendTestDelivery } from './sendTestDelivery.ts';

const once = process.argv.includes('--once');
const secret = process.env.MOUNTAIN_WEBHOOK_SECRET ?? generateSecret();

const app = Fastify();

// Adds POST /webhooks (see the `path` option, or register with `{ prefix }`). The plugin keeps raw bytes for its
// own route only (Fastify encapsulation): other routes still get parsed JSON.
await app.register(
  createFastifyPlugin(secret, async (event, { id }) => {
    const { event: abiEvent, blockNumber, decodedLog } = event.data;
    console.log(`${abiEvent.name} in block ${blockNumber}: ${JSON.stringify(decodedLog)} (webhook-id ${id})`);
  }),
);

app.post('/api/echo', async (request) => request.body);

const address = await app.listen({ port: once ? 0 : Number(process.env.PORT ?? 3000), host: '127.0.0.1' });
console.log(`Listening on ${address}/webhooks`);
if (once) {
  await sendTestDelivery(`${address}/webhooks`, secret);
  await app.close();
}
