// The platform bench:console measures: a PostgreSQL of its own (the keeper of `npm start`, in a process group of its
// own), anvil with the Counter, and the API serving the built console with a job worker (@mountain/api/testing), all
// on 127.0.0.1. One project holds what a person sees in each view: the Counter imported with two functions active,
// a few increments executed and mined, a subscription to its events, a reader member, and BENCH_TRANSACTIONS
// (10,000) transactions written straight into the database, spread over the last day in every final status.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createHarness, type Harness } from '@mountain/api/testing';
import { startAnvil } from '@mountain/testkit/anvil.ts';
import { rpcCall } from '@mountain/testkit/jsonRpc.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { COUNTER_FORMATTED_ABI, deployCounter, incrementsSubscription } from '@mountain/testkit/testContract.ts';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import { keepPostgres } from '../../../scripts/lib/postgresKeeper.ts';

export const CONSOLE_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist');
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const TEMPLATE = 'mountain_bench_template';
const INCREMENT = 'function increment(uint256 amount)';
const RECORD = COUNTER_FORMATTED_ABI.find((s) => s.startsWith('function record(')) as string;

export type Stop = () => Promise<unknown> | unknown;

export interface BenchPlatform {
  h: Harness;
  /** The API's origin; the console is at `${origin}/console/`. */
  origin: string;
  apiKey: string;
  projectId: number;
  /** A mined increment executed through the API: the transaction page's subject. */
  transactionId: string;
  /** Rows in the project's transactions table, by status. */
  statuses: Record<string, number>;
}

/**
 * Starts everything and pushes each teardown onto `stops` (run in reverse order by the caller), so that whatever
 * started is stopped even when a later step fails.
 */
export async function startBenchPlatform(seedRows: number, stops: Stop[]): Promise<BenchPlatform> {
  // PostgreSQL: a migrated template, as `npm test` makes one; the harness copies it into a fresh database.
  const dir = path.join(REPO_ROOT, '.data', `bench-console-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  stops.push(() => rmSync(dir, { recursive: true, force: true }));
  const postgres = await keepPostgres(path.join(dir, 'postgres'), await freePort(), TEMPLATE);
  stops.push(() => postgres.stop());
  await migrate(postgres.url, dir);
  const admin = new URL(postgres.url);
  admin.pathname = '/postgres';
  process.env.TEST_PG_ADMIN_URL = admin.toString();
  process.env.TEST_PG_TEMPLATE = TEMPLATE;

  const anvil = await startAnvil({ port: await freePort() });
  stops.push(() => anvil.stop());
  const counter = await deployCounter(anvil.url);
  const h = await createHarness({ rpcUrls: { 1337: anvil.url }, worker: true, consoleDir: CONSOLE_DIST });
  stops.push(() => h.close());
  const origin = await h.app.listen({ host: '127.0.0.1', port: 0 });

  const { project, apiKey } = await h.project('Bench project');
  await h.member(project.id, 'reader');
  const headers = { 'x-api-key': apiKey };
  const call = async (operationId: string, body: unknown) => {
    const answer = await h.call(operationId, { headers, body });
    if (answer.status >= 300) throw new Error(`${operationId}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  const imported = await call('import-contract', {
    networkId: 1337,
    address: counter,
    formattedAbi: COUNTER_FORMATTED_ABI,
  });
  const functionIds: number[] = [];
  for (const formattedAbiFunction of [INCREMENT, RECORD]) {
    const activated = await call('activate-contract-function', {
      contractId: imported.contract.id,
      formattedAbiFunction,
    });
    functionIds.push(activated.contractActivatedFunction.id);
  }
  await call('create-subscription', incrementsSubscription(counter));
  const executed: string[] = [];
  for (let i = 1; i <= 5; i++) {
    const answer = await call('execute-transaction', {
      contractActivatedFunctionId: functionIds[0],
      functionArgs: [String(i)],
      idempotencyKey: `bench-increment-${i}`,
    });
    executed.push(answer.transaction.id);
  }
  await waitFor(
    async () => {
      const { rows } = await h.db.query<{ n: string }>(
        "SELECT count(*) AS n FROM transactions WHERE project_id = $1 AND status = 'succeeded'",
        [project.id],
      );
      return Number(rows[0]?.n) === executed.length ? true : undefined;
    },
    60_000,
    'the increments to be mined',
  );
  // Deep enough that the chain calls them final: the transaction page then stops asking for them again.
  await rpcCall(anvil.url, 'anvil_mine', ['0x80']);
  await waitFor(
    async () => {
      const { rows } = await h.db.query<{ n: string }>(
        'SELECT count(*) AS n FROM transactions WHERE project_id = $1 AND finalized_at IS NOT NULL',
        [project.id],
      );
      return Number(rows[0]?.n) === executed.length ? true : undefined;
    },
    60_000,
    'the increments to be final',
  ).catch(() => console.log('(the executed increments are not final yet: their page keeps refreshing)'));

  await seedTransactions(h, project.id, seedRows);
  const { rows } = await h.db.query<{ status: string; n: string }>(
    'SELECT status, count(*) AS n FROM transactions WHERE project_id = $1 GROUP BY status ORDER BY status',
    [project.id],
  );
  return {
    h,
    origin,
    apiKey,
    projectId: project.id,
    transactionId: executed[executed.length - 1] as string,
    statuses: Object.fromEntries(rows.map((r) => [r.status, Number(r.n)])),
  };
}

/**
 * Brings the template's schema up to date the way every process of the platform does when it opens its database:
 * here through the admin CLI (a read-only command), with keys of its own so that nothing is written under .data/.
 */
async function migrate(databaseUrl: string, dir: string): Promise<void> {
  // @mountain/api exports its testing folder; its bin/ is beside it.
  const cli = path.join(path.dirname(createRequire(import.meta.url).resolve('@mountain/api/testing')), '../bin');
  const key = () => randomBytes(32).toString('base64');
  await promisify(execFile)(process.execPath, [path.join(cli, 'mountain-admin.js'), 'list-projects', '--json'], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: databaseUrl,
      DATA_DIR: dir,
      MASTER_KEY: key(),
      TOKEN_SIGNING_KEY: key(),
    },
    timeout: 120_000,
  });
}

/**
 * `rows` transactions of the project's first executed function, as the sender and monitor leave them once settled:
 * final statuses only (nothing for the worker to pick up), mined ones finalized, created over the last 22 hours.
 */
async function seedTransactions(h: Harness, projectId: number, rows: number): Promise<void> {
  const { rows: model } = await h.db.query<{
    contract_activated_function_id: number;
    system_wallet_id: number;
    to_address: string;
    data: string;
  }>(
    `SELECT contract_activated_function_id, system_wallet_id, to_address, data FROM transactions
      WHERE project_id = $1 ORDER BY created_at LIMIT 1`,
    [projectId],
  );
  const from = model[0];
  if (!from) throw new Error('no executed transaction to model the seeded ones on');
  await h.db.query(
    `INSERT INTO transactions (project_id, contract_activated_function_id, system_wallet_id, network_id, function_args,
        to_address, data, status, transaction_hash, gas_used, error_message, send_attempts, broadcasted_at,
        finalized_at, idempotency_key, request_hash, created_at, updated_at)
     SELECT $1, $2, $3, 1337, jsonb_build_array((i % 1000)::text), $4, $5, s.status,
        CASE WHEN s.status <> 'broadcast-failed' THEN '0x' || encode(sha256(('bench-' || i)::bytea), 'hex') END,
        CASE WHEN s.status IN ('succeeded', 'reverted') THEN 30000 + i % 5000 END,
        CASE WHEN s.status = 'broadcast-failed' THEN 'insufficient funds for gas * price + value'
             WHEN s.status = 'monitor-failed' THEN 'not mined after 5 fee bumps' END,
        1,
        CASE WHEN s.status <> 'broadcast-failed' THEN t.at + interval '1 second' END,
        CASE WHEN s.status IN ('succeeded', 'reverted') THEN t.at + interval '30 seconds' END,
        'bench-seed-' || i, 'bench', t.at, t.at + interval '30 seconds'
       FROM generate_series(1, $6::int) AS i,
            LATERAL (SELECT CASE WHEN i % 50 = 0 THEN 'broadcast-failed' WHEN i % 31 = 0 THEN 'monitor-failed'
                                 WHEN i % 13 = 0 THEN 'reverted' ELSE 'succeeded' END AS status) AS s,
            LATERAL (SELECT now() - interval '10 minutes' - i * (interval '22 hours' / $6::int) AS at) AS t`,
    [projectId, from.contract_activated_function_id, from.system_wallet_id, from.to_address, from.data, rows],
  );
  await h.db.query('ANALYZE transactions');
}
