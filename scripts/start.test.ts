import assert from 'node:assert/strict';
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DEMO_WALLET_GRANT, DOCS_TOKEN_ADDRESS } from '@mountain/testkit/docsToken.ts';
import { freePort } from '@mountain/testkit/ports.ts';
import { COUNTER_FORMATTED_ABI, deployCounter } from '@mountain/testkit/testContract.ts';
import pg from 'pg';
import { STATE_FILE } from '../apps/api/src/cli/runningPlatform.ts';
import { docsBlock } from './lib/docsBlocks.ts';
import { isRunning, type ProcessRecord } from './lib/ownedProcesses.ts';

/** A JSON answer, as a reader's script reads it. */
// biome-ignore lint/suspicious/noExplicitAny: see above
type Json = any;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Processes whose command line mentions `needle`, other than this test's own. */
function processesMatching(needle: string): string[] {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(needle) && !line.includes('ps -eo'));
}

interface Ports {
  api: number;
  docs: number;
  anvil: number;
  pg: number;
}

interface Started {
  child: ChildProcess;
  output(): string;
  exited: Promise<[number | null, string | null]>;
}

/** `npm start` in a process group of its own (as in a terminal); resolves once it is running or has exited. */
async function npmStart(dataDir: string, ports: Ports, env: Record<string, string> = {}): Promise<Started> {
  const child = spawn('npm', ['start'], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'development',
      DATA_DIR: dataDir,
      API_PORT: String(ports.api),
      DOCS_PORT: String(ports.docs),
      ANVIL_PORT: String(ports.anvil),
      EMBEDDED_PG_PORT: String(ports.pg),
      RPC_URL_1337: '',
      DATABASE_URL: '',
      // npm start turns loopback webhooks on itself; whatever this test's environment has is not inherited.
      WEBHOOK_ALLOW_PRIVATE_ADDRESSES: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<[number | null, string | null]>((resolve) =>
    child.once('exit', (c, s) => resolve([c, s])),
  );
  const deadline = Date.now() + 240_000;
  while (!output.includes('Press Ctrl-C') && Date.now() < deadline && child.exitCode === null) await sleep(200);
  return { child, output: () => output, exited };
}

/** The processes the running `npm start` recorded, by name. */
function recorded(dataDir: string): Record<string, ProcessRecord> {
  const { processes } = JSON.parse(readFileSync(path.join(ROOT, dataDir, STATE_FILE), 'utf8')) as {
    processes: ProcessRecord[];
  };
  return Object.fromEntries(processes.map((p) => [p.name, p]));
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(200);
  }
}

const answers = (url: string) =>
  fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
    (res) => res.ok,
    () => false,
  );

describe('npm start', () => {
  const dataDir = `.data/start-test-${process.pid}`;
  let ports: Ports;
  let platform: Started;
  let api: string;
  let docs: string;
  before(async () => {
    ports = { api: await freePort(), docs: await freePort(), anvil: await freePort(), pg: await freePort() };
    api = `http://127.0.0.1:${ports.api}`;
    docs = `http://127.0.0.1:${ports.docs}`;
    platform = await npmStart(dataDir, ports, { FAULT_INJECTION: '1' });
  });
  after(() => {
    if (platform && platform.child.exitCode === null && platform.child.signalCode === null) {
      process.kill(-(platform.child.pid as number), 'SIGKILL');
    }
    try {
      for (const record of Object.values(recorded(dataDir))) if (isRunning(record)) process.kill(record.pid, 'SIGKILL');
    } catch {}
    rmSync(path.join(ROOT, dataDir), { recursive: true, force: true });
  });

  it('starts everything and prints a working demo key', async () => {
    const output = platform.output();
    assert.match(output, /Mountain is running/, output);
    assert.match(output, new RegExp(`Docs +http://127\\.0\\.0\\.1:${ports.docs}`));
    const key = /API key +(mtn_test_\w+)/.exec(output)?.[1];
    const token = /Access token +(\S+)/.exec(output)?.[1];
    assert.ok(key && token, output);
    assert.match(output, new RegExp(`Console +${api}/console/`));
    const link = /Console sign-in (\S+)/.exec(output)?.[1] ?? '';
    assert.ok(link.startsWith(`${api}/console/sign-in#code=`), output);
    const consolePage = await fetch(link.split('#')[0] as string);
    assert.equal(consolePage.status, 200, 'npm start built the console and the API serves it');
    const exchanged = await fetch(`${api}/public-api/v3/console/exchange-console-link`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: link.split('#code=')[1] }),
    });
    assert.equal(exchanged.status, 200, 'the printed link signs in');

    assert.deepEqual(await (await fetch(`${api}/healthz`)).json(), { status: 'ok' });
    const ready = await (await fetch(`${api}/readyz`)).json();
    assert.deepEqual(ready.checks, { database: 'ok', 'chain:1337': 'ok' });
    const detail = await fetch(`${api}/public-api/v3/project/get-project-detail`, { headers: { 'x-api-key': key } });
    assert.equal(detail.status, 200);
    assert.equal((await detail.json()).data.project.projectName, 'Demo project');
    const projects = await fetch(`${api}/public-api/v3/project/get-projects`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal((await projects.json()).meta.totalItems, 1);
    const home = await fetch(`${docs}/`);
    assert.equal(home.status, 200);
    assert.match(await home.text(), /<html/);
    // A webhook endpoint on this machine (loopback), which every other deployment refuses by default.
    const endpoint = await fetch(`${api}/public-api/v3/webhook/create-webhook-endpoint`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `http://127.0.0.1:${ports.docs}/hook`, eventTypes: ['transaction.succeeded'] }),
    });
    assert.equal(endpoint.status, 201, await endpoint.clone().text());
    assert.deepEqual(Object.keys(recorded(dataDir)).sort(), [
      'anvil',
      'api',
      'docs',
      'npm start',
      'postgres',
      'postgres keeper',
      'worker',
    ]);
  });

  it('a newcomer walks the docs pages from the printed key to a verified webhook, on the demo token npm start deployed', async () => {
    const started = performance.now();
    const output = platform.output();
    const wallet = /Testnet wallet +(0x[0-9a-fA-F]{40})/.exec(output)?.[1] as string;
    assert.match(
      output,
      new RegExp(`Demo token +${DOCS_TOKEN_ADDRESS}, deployed now; the demo wallet holds ${DEMO_WALLET_GRANT}`),
    );
    // What account-setup.md tells the reader to export, from what npm start printed: nothing else.
    const env: Record<string, string> = {
      MOUNTAIN_API_URL: /Public API v3 +(\S+)/.exec(output)?.[1] as string,
      MOUNTAIN_API_KEY: /API key +(mtn_test_\w+)/.exec(output)?.[1] as string,
      MOUNTAIN_ACCESS_TOKEN: /Access token +(\S+)/.exec(output)?.[1] as string,
    };
    const walkDir = path.join(ROOT, dataDir, 'walk');
    mkdirSync(walkDir, { recursive: true });
    /** A page's bash block, run as the reader pastes it into the shell where the exports are. */
    const shell = async (page: string, id: string) => {
      const file = path.join(walkDir, `${id}.sh`);
      writeFileSync(file, docsBlock(page, 'bash', id));
      const { stdout } = await promisify(execFile)('bash', ['-e', file], {
        cwd: walkDir,
        env: { ...process.env, ...env },
      });
      return JSON.parse(stdout) as Json;
    };

    const detail = await shell('getting-started/first-api-call.md', 'first-call-curl');
    assert.equal(detail.data.mSystemWalletTestnet.address, wallet, 'the printed wallet is the project’s');
    const imported = await shell('services/mountain-smart-contracts/contract-import.md', 'import-contract');
    assert.equal(imported.contract?.address, DOCS_TOKEN_ADDRESS, JSON.stringify(imported));
    env.MOUNTAIN_CONTRACT_ID = String(imported.contract.id);
    const activated = await shell('services/mountain-smart-contracts/function-management.md', 'activate-function');
    env.MOUNTAIN_FUNCTION_ID = String(activated.contractActivatedFunction.id);
    const transactions = 'services/mountain-transactions/getting-started.md';
    const executed = await shell(transactions, 'execute-transaction');
    assert.equal(executed.transaction?.status, 'created', JSON.stringify(executed));
    env.MOUNTAIN_TRANSACTION_ID = executed.transaction.id;
    let transaction: Json;
    await until('the transfer succeeds', async () => {
      transaction = (await shell(transactions, 'get-transaction')).transaction;
      return !['created', 'processing', 'broadcasted', 'cancelling'].includes(transaction.status);
    });
    assert.equal(transaction.status, 'succeeded', transaction.errorMessage);

    const events = 'services/mountain-events/getting-started.md';
    const subscription = (await shell(events, 'create-subscription')).eventNotifierSubscription;
    env.MOUNTAIN_SUBSCRIPTION_ID = subscription.id;
    env.MOUNTAIN_WEBHOOK_SECRET = subscription.webhookSecret;
    // "Save it as receiver.ts and start it in a second terminal: node --import tsx receiver.ts".
    writeFileSync(path.join(walkDir, 'receiver.ts'), docsBlock(events, 'ts', 'events-receiver'));
    env.PORT = String(await freePort());
    const receiver = spawn(process.execPath, ['--import', 'tsx', 'receiver.ts'], {
      cwd: walkDir,
      env: { ...process.env, ...env },
    });
    let printed = '';
    receiver.stdout.on('data', (chunk) => {
      printed += chunk;
    });
    receiver.stderr.on('data', (chunk) => {
      printed += chunk;
    });
    try {
      await until('the receiver listens', () =>
        fetch(`http://127.0.0.1:${env.PORT}/`, { method: 'HEAD' }).then(
          () => true,
          () => false,
        ),
      );
      const pointed = (await shell(events, 'subscription-webhook-on')).eventNotifierSubscription;
      assert.equal(pointed.webhookEnabled, true);
      // The mint, npm start's grant to the wallet and the page's transfer, each verified by the SDK and printed.
      await until('the receiver prints the three Transfer events', () => printed.split('Transfer {').length === 4);
      assert.match(printed, /Transfer \{\n\s*from: '0x0{40}',/);
      assert.match(printed, new RegExp(`to: '${wallet}',\\n\\s*value: '${DEMO_WALLET_GRANT}'`));
      assert.match(printed, /to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',\n\s*value: '1000'/);
      let records: Json[] = [];
      await until('every record is notified', async () => {
        records = (await shell(events, 'events-get-records')).eventNotifierRecords;
        return records.length === 3 && records.every((r) => r.status === 'notified');
      });
      assert.deepEqual(
        records.map((r) => r.notificationFailureCount),
        [0, 0, 0],
        'no delivery failed: the receiver listened before the webhook was on',
      );
    } finally {
      receiver.kill('SIGTERM');
    }
    console.log(`the docs walk took ${((performance.now() - started) / 1000).toFixed(1)} s`);
  });

  it('gives PostgreSQL a random password kept in DATA_DIR/secrets.json (0600) and a socket only its owner can use', async () => {
    const secretsFile = path.join(ROOT, dataDir, 'secrets.json');
    assert.equal(statSync(secretsFile).mode & 0o777, 0o600);
    const { postgresPassword } = JSON.parse(readFileSync(secretsFile, 'utf8')) as { postgresPassword: string };
    assert.match(postgresPassword, /^[A-Za-z0-9_-]{32}$/);
    const connect = async (password: string) => {
      const client = new pg.Client({
        host: '127.0.0.1',
        port: ports.pg,
        user: 'postgres',
        password,
        database: 'postgres',
      });
      try {
        await client.connect();
        return 'ok';
      } catch (error) {
        return (error as { code?: string }).code;
      } finally {
        await client.end().catch(() => {});
      }
    };
    assert.equal(await connect(postgresPassword), 'ok');
    assert.equal(await connect('mountain-dev'), '28P01', 'the former fixed password is refused');
    const socketDir = path.join(ROOT, dataDir, 'postgres.socket');
    assert.equal(statSync(socketDir).mode & 0o777, 0o700);
    assert.equal(statSync(path.join(socketDir, `.s.PGSQL.${ports.pg}`)).mode & 0o777, 0o700);
  });

  it('runs a simulated Fireblocks workspace: a Fireblocks project made with the admin CLI executes through it', async () => {
    assert.match(
      platform.output(),
      /Fireblocks +http:\/\/127\.0\.0\.1:\d+\/v1 \(simulated: FIREBLOCKS_API_KEY is unset/,
    );
    // The admin CLI of this clone, as a newcomer runs it in another terminal: it finds npm start's database and
    // simulated workspace through DATA_DIR.
    const { stdout } = await promisify(execFile)(
      'npm',
      ['run', '-s', 'admin', '--', 'create-project', '--name', 'Vaulted', '--wallet-type', 'fireblocks', '--json'],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          NODE_ENV: 'development',
          DATA_DIR: dataDir,
          DATABASE_URL: '',
          EMBEDDED_PG_PORT: String(ports.pg),
        },
      },
    );
    const headers = { 'x-api-key': JSON.parse(stdout).apiKey, 'content-type': 'application/json' };
    const call = async (operation: string, body?: unknown) => {
      const res = await fetch(`${api}/public-api/v3/${operation}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return (await res.json()) as any;
    };
    const wallet = (await call('project/get-project-detail')).data.mSystemWalletTestnet;
    assert.equal(wallet.type, 'fireblocks');
    assert.equal(wallet.custody.provider, 'fireblocks');
    const counter = await deployCounter(`http://127.0.0.1:${ports.anvil}`);
    const { contract } = await call('contract/import-contract', {
      networkId: 1337,
      address: counter,
      formattedAbi: COUNTER_FORMATTED_ABI,
    });
    const increment = COUNTER_FORMATTED_ABI.find((e) => e.startsWith('function increment(')) as string;
    const { contractActivatedFunction } = await call('contract/activate-contract-function', {
      contractId: contract.id,
      formattedAbiFunction: increment,
    });
    const { transaction } = await call('transaction/execute-transaction', {
      contractActivatedFunctionId: contractActivatedFunction.id,
      functionArgs: ['3'],
      idempotencyKey: 'through-fireblocks',
    });
    let done: any;
    await until('the Fireblocks transaction succeeds', async () => {
      done = (await call(`transaction/get-transaction?transactionId=${transaction.id}`)).transaction;
      return ['succeeded', 'reverted', 'broadcast-failed', 'monitor-failed'].includes(done.status);
    });
    assert.equal(done.status, 'succeeded', done.errorMessage);
    assert.equal(done.custody.provider, 'fireblocks');
    assert.match(done.custody.id, /^[0-9a-f-]{36}$/);
  });

  it('answers 400 to an undecodable docs URL and keeps serving', async () => {
    const docsPid = recorded(dataDir).docs?.pid;
    const bad = await fetch(`${docs}/%E0%A4%A`);
    assert.equal(bad.status, 400);
    await sleep(500);
    assert.equal((await fetch(`${docs}/`)).status, 200);
    assert.ok(await answers(`${api}/healthz`));
    assert.equal(recorded(dataDir).docs?.pid, docsPid, 'the docs server did not restart');
    assert.doesNotMatch(platform.output(), /\[docs\] exited/);
  });

  it('logs an exception thrown in the API, restarts the API, and the worker and docs keep running', async () => {
    const before = recorded(dataDir);
    const thrown = await fetch(`${api}/_faults/uncaught-exception`, { method: 'POST' });
    assert.equal(thrown.status, 202);
    await until('the API process has exited', () => /\[api\] exited with code 1/.test(platform.output()));
    assert.match(platform.output(), /\[api\] .*Injected fault: an exception thrown outside any request/);
    assert.match(platform.output(), /\[api\] exited with code 1; the other parts keep running; restarting it in 1 s/);
    assert.equal((await fetch(`${docs}/`)).status, 200, 'the docs server answers while the API restarts');
    await until('the API answers again', () => answers(`${api}/readyz`));
    const now = recorded(dataDir);
    assert.notEqual(now.api?.pid, before.api?.pid, 'a new API process');
    for (const name of ['worker', 'docs', 'postgres', 'postgres keeper', 'anvil', 'npm start']) {
      assert.equal(now[name]?.pid, before[name]?.pid, `${name} kept running`);
      assert.ok(isRunning(now[name] as ProcessRecord), `${name} runs`);
    }
    assert.equal(platform.child.exitCode, null, 'npm start runs');
  });

  it('after a SIGKILL of npm start, the next start stops what it left behind and starts fresh', async () => {
    const earlier = recorded(dataDir);
    process.kill((earlier['npm start'] as ProcessRecord).pid, 'SIGKILL');
    await platform.exited;
    // The parts and PostgreSQL's keeper (which stops the server) end with their supervisor; anvil cannot know, and
    // is left running.
    await until('api, worker, docs and PostgreSQL have ended', () =>
      ['api', 'worker', 'docs', 'postgres keeper', 'postgres'].every(
        (name) => !isRunning(earlier[name] as ProcessRecord),
      ),
    );
    assert.ok(isRunning(earlier.anvil as ProcessRecord), 'anvil is left behind');

    platform = await npmStart(dataDir, ports);
    const output = platform.output();
    assert.match(output, /Mountain is running/, output);
    assert.match(output, new RegExp(`Stopped anvil \\(pid ${earlier.anvil?.pid}\\)`));
    // The chain's state was kept (anvil writes it when stopped): the demo token is found, not deployed again, and
    // the wallet, which holds some (less the walk's transfer), gets no second grant.
    assert.match(
      output,
      new RegExp(
        `Demo token +${DOCS_TOKEN_ADDRESS}, deployed earlier; the demo wallet holds ${DEMO_WALLET_GRANT - 1000n}\n`,
      ),
    );
    assert.ok(!isRunning(earlier.anvil as ProcessRecord), 'the earlier anvil is gone');
    const now = recorded(dataDir);
    assert.notEqual(now.anvil?.pid, earlier.anvil?.pid);
    assert.notEqual(now.postgres?.pid, earlier.postgres?.pid);
    const key = /API key +(mtn_test_\w+)/.exec(output)?.[1] as string;
    const detail = await fetch(`${api}/public-api/v3/project/get-project-detail`, { headers: { 'x-api-key': key } });
    assert.equal(detail.status, 200);
    assert.equal((await fetch(`${docs}/`)).status, 200);
  });

  it("stops with nothing left behind on a SIGINT to npm's own PID, and says so", async () => {
    const started = recorded(dataDir);
    // Only npm, which passes it on to its script (`exec` in the script: no shell in between to swallow it).
    process.kill(platform.child.pid as number, 'SIGINT');
    const [code, signal] = await platform.exited;
    const output = platform.output();
    assert.ok(code === 0 || signal === 'SIGINT', `exit ${code} ${signal}\n${output}`);
    assert.doesNotMatch(output, /Error|error:/, 'a clean stop logs no errors');
    assert.match(output, /npm start stopped: everything it started is stopped\./);
    await sleep(500);
    for (const record of Object.values(started)) assert.ok(!isRunning(record), `${record.name} stopped`);
    assert.deepEqual(processesMatching(path.join(ROOT, dataDir)), [], 'postgres stopped');
    assert.deepEqual(processesMatching(`--port ${ports.anvil}`), [], 'anvil stopped');
    assert.ok(!(await answers(`${api}/healthz`)), 'API stopped');
    assert.throws(() => recorded(dataDir), /ENOENT/, 'the state file is removed');
  });
});

describe('npm start next to processes it did not start', () => {
  const dataDir = `.data/start-foreign-test-${process.pid}`;
  after(() => rmSync(path.join(ROOT, dataDir), { recursive: true, force: true }));

  it('refuses ports held by other processes, naming them, and adopts nothing', async () => {
    // A chain that answers like anvil, and a TCP listener where PostgreSQL would go.
    const chain = createHttpServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: '0x539' }));
    });
    const pg = net.createServer((socket) => socket.destroy());
    const ports = { api: await freePort(), docs: await freePort(), anvil: 0, pg: 0 };
    await new Promise<void>((resolve) => chain.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => pg.listen(0, '127.0.0.1', resolve));
    ports.anvil = (chain.address() as net.AddressInfo).port;
    ports.pg = (pg.address() as net.AddressInfo).port;
    try {
      const started = await npmStart(dataDir, ports);
      const [code] = await started.exited;
      const output = started.output();
      assert.notEqual(code, 0, output);
      assert.doesNotMatch(output, /Mountain is running/);
      for (const [variable, port] of [
        ['ANVIL_PORT', ports.anvil],
        ['EMBEDDED_PG_PORT', ports.pg],
      ] as const) {
        assert.match(
          output,
          new RegExp(
            `Port ${port} \\(${variable}\\) is already in use by pid ${process.pid} \\(.*\\)\\. npm start did not start that process and leaves it alone`,
          ),
        );
      }
      assert.ok(chain.listening && pg.listening, 'the foreign processes are left alone');
      assert.deepEqual(processesMatching(`--port ${ports.anvil}`), [], 'no anvil started');
      assert.deepEqual(processesMatching(path.join(ROOT, dataDir)), [], 'no postgres started');
    } finally {
      chain.close();
      pg.close();
    }
  });

  it('on a machine without an anvil binary, says how to point RPC_URL_1337 at a chain and starts nothing', async () => {
    // What a machine whose per-platform anvil package is not in the lock file sees: the package cannot be resolved.
    const hideAnvil = [
      "import Module from 'node:module';",
      'const resolve = Module._resolveFilename;',
      'Module._resolveFilename = function (request, ...rest) {',
      "  if (request.startsWith('@foundry-rs/')) throw Object.assign(new Error(request), { code: 'MODULE_NOT_FOUND' });",
      '  return resolve.call(this, request, ...rest);',
      '};',
    ].join('\n');
    const ports = { api: await freePort(), docs: await freePort(), anvil: await freePort(), pg: await freePort() };
    const started = await npmStart(dataDir, ports, {
      NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(hideAnvil)}`,
      PATH: [path.dirname(process.execPath), '/usr/bin', '/bin'].join(path.delimiter),
    });
    const [code] = await started.exited;
    const output = started.output();
    assert.equal(code, 1, output);
    assert.ok(output.includes(`No anvil for this machine (${process.platform}-${process.arch}): `), output);
    assert.match(output, /RPC_URL_1337=http:\/\/127\.0\.0\.1:8545 npm start/);
    assert.doesNotMatch(output, /Mountain is running|at anvilBinary/);
    assert.deepEqual(processesMatching(`--port ${ports.anvil}`), [], 'no anvil started');
    assert.deepEqual(processesMatching(path.join(ROOT, dataDir)), [], 'no postgres started');
  });
});
