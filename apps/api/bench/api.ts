// npm run bench:api — get-project-detail (API key auth) against a bare Fastify route doing the same SQL on the
// same database, measured in the same run, alternating so that machine noise hits both alike.
// BENCH_AUTH=token calls the app with an access token instead (the bare route keeps the API key's SQL).
import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { recordBench } from '@mountain/testkit/benchResults.ts';
import autocannon from 'autocannon';

const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const AUTH = process.env.BENCH_AUTH === 'token' ? 'token' : 'key';

const servers = fork(path.join(path.dirname(fileURLToPath(import.meta.url)), 'servers.ts'), {
  execArgv: ['--import', 'tsx'],
  stdio: 'inherit',
});
type Servers = { apiKey: string; token: string; app: string; bare: string };
const urls = await new Promise<Servers>((resolve, reject) => {
  servers.once('message', (m) => resolve(m as Servers));
  servers.once('exit', (code) => reject(new Error(`bench servers exited with ${code}`)));
});

async function measure(url: string): Promise<{ rps: number; p99: number; errors: number }> {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: DURATION,
    headers:
      url === urls.app && AUTH === 'token' ? { authorization: `Bearer ${urls.token}` } : { 'x-api-key': urls.apiKey },
  });
  const errors = result.errors + result.non2xx;
  return { rps: result.requests.average, p99: result.latency.p99, errors };
}

await measure(urls.app); // warm-up: JIT, connection pool
const totals = { app: [] as number[], bare: [] as number[] };
for (let round = 1; round <= ROUNDS; round++) {
  for (const name of round % 2 ? (['bare', 'app'] as const) : (['app', 'bare'] as const)) {
    const { rps, p99, errors } = await measure(urls[name]);
    if (errors) throw new Error(`${name}: ${errors} failed requests`);
    totals[name].push(rps);
    console.log(
      `round ${round}  ${name === 'app' ? 'get-project-detail' : 'bare fastify + same SQL'}: ${rps.toFixed(0)} req/s, p99 ${p99} ms`,
    );
  }
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const app = mean(totals.app);
const bare = mean(totals.bare);
console.log(`\nget-project-detail (${AUTH === 'token' ? 'access token' : 'API key'}): ${app.toFixed(0)} req/s`);
console.log(`bare Fastify, same SQL:       ${bare.toFixed(0)} req/s`);
console.log(`ratio: ${(app / bare).toFixed(2)} (target ≥ 0.80)`);
recordBench('api', [
  {
    name: `get-project-detail (${AUTH === 'token' ? 'access token' : 'API key'})`,
    value: Math.round(app),
    unit: 'req/s',
  },
  { name: 'bare Fastify, same SQL', value: Math.round(bare), unit: 'req/s' },
  { name: 'ratio', value: Number((app / bare).toFixed(2)), unit: '', target: { op: '>=', value: 0.8 } },
]);
servers.send('stop');
