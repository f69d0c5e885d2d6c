import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from '@mountain/testkit/ports.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Processes whose command line mentions `needle`, other than this test's own. */
function processesMatching(needle: string): string[] {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(needle) && !line.includes('ps -eo'));
}

describe('npm start', () => {
  const dataDir = `.data/start-test-${process.pid}`;
  let child: ChildProcess | undefined;
  after(() => {
    if (child?.exitCode === null) child.kill('SIGKILL');
    rmSync(path.join(ROOT, dataDir), { recursive: true, force: true });
  });

  it('starts everything, prints a working demo key, and stops with nothing left behind on Ctrl-C', async () => {
    const ports = { api: await freePort(), docs: await freePort(), anvil: await freePort(), pg: await freePort() };
    child = spawn('npm', ['start'], {
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
    const deadline = Date.now() + 180_000;
    while (!output.includes('Press Ctrl-C') && Date.now() < deadline && child.exitCode === null) {
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.match(output, /Mountain is running/, output);
    assert.match(output, new RegExp(`Docs +http://127\\.0\\.0\\.1:${ports.docs}`));
    const key = /API key +(mtn_test_\w+)/.exec(output)?.[1];
    const token = /Access token +(\S+)/.exec(output)?.[1];
    assert.ok(key && token, output);

    const api = `http://127.0.0.1:${ports.api}`;
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
    const home = await fetch(`http://127.0.0.1:${ports.docs}/`);
    assert.equal(home.status, 200);
    assert.match(await home.text(), /<html/);

    assert.ok(processesMatching(path.join(ROOT, dataDir)).length > 0, 'embedded postgres runs from the data dir');
    assert.ok(processesMatching(`--port ${ports.anvil}`).length > 0, 'anvil runs');

    // Ctrl-C reaches the whole process group, as in a terminal.
    process.kill(-(child.pid as number), 'SIGINT');
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
      child?.once('exit', (c, s) => resolve([c, s])),
    );
    assert.ok(code === 0 || signal === 'SIGINT', `exit ${code} ${signal}\n${output}`);
    assert.doesNotMatch(output, /Error|error:/, 'a clean stop logs no errors');
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(processesMatching(path.join(ROOT, dataDir)), [], 'postgres stopped');
    assert.deepEqual(processesMatching(`--port ${ports.anvil}`), [], 'anvil stopped');
    assert.ok(
      !(await fetch(`${api}/healthz`).then(
        () => true,
        () => false,
      )),
      'API stopped',
    );
  });
});
