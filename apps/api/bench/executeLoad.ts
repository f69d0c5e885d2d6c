// Child process of bench:tx: drives execute-transaction at a fixed rate with autocannon, so that the load
// generator does not share the API's event loop. Receives its options over IPC and answers with the result.
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';

process.once('message', async (message) => {
  const o = message as {
    url: string;
    apiKey: string;
    functionId: number;
    rate: number;
    seconds: number;
    connections: number;
  };
  let n = 0;
  const result = await autocannon({
    url: o.url,
    method: 'POST',
    connections: o.connections,
    overallRate: o.rate,
    duration: o.seconds,
    headers: { 'x-api-key': o.apiKey, 'content-type': 'application/json' },
    requests: [
      {
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({
            contractActivatedFunctionId: o.functionId,
            functionArgs: [String((n++ % 1000) + 1)],
            idempotencyKey: randomUUID(),
          }),
        }),
      },
    ],
  });
  process.send?.(
    {
      accepted: result['2xx'],
      non2xx: result.non2xx,
      errors: result.errors,
      p50: result.latency.p50,
      p99: result.latency.p99,
    },
    () => process.exit(0),
  );
});
