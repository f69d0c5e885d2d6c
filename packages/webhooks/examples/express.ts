// Receive Mountain webhooks in an Express 4 or 5 app.
// Run: MOUNTAIN_WEBHOOK_SECRET=whsec_… node --import tsx express.ts         (serves until stopped)
//      node --import tsx express.ts --once   (sends itself one signed test delivery, then exits)
import type { AddressInfo } from 'node:net';
import { createExpressMiddleware, generateSecret } from '@mountain/webhook-sdk';
import express from 'express';
import { sendTestDelivery } from './sendTestDelivery.ts';

const once = process.argv.includes('--once');
const secret = process.env.MOUNTAIN_WEBHOOK_SECRET ?? generateSecret();

const app = express();

// Register the webhook route BEFORE `app.use(express.json())`: the signature covers the raw bytes, and
// express.json() would consume them. The middleware reads the body itself (or uses the Buffer that
// `express.raw({ type: 'application/json' })` leaves when you mount that on the route instead).
app.post(
  '/webhooks',
  createExpressMiddleware(secret, async (event, { id }) => {
    const { event: abiEvent, blockNumber, decodedLog } = event.data;
    console.log(`${abiEvent.name} in block ${blockNumber}: ${JSON.stringify(decodedLog)} (webhook-id ${id})`);
  }),
);

// The rest of the app parses JSON as usual.
app.use(express.json());
app.post('/api/echo', (req, res) => {
  res.json(req.body);
});

const server = app.listen(once ? 0 : Number(process.env.PORT ?? 3000), '127.0.0.1', async () => {
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  console.log(`Listening on ${url}`);
  if (once) {
    await sendTestDelivery(url, secret);
    server.close();
  }
});
