import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { waitFor } from '@mountain/testkit/waitFor.ts';
import { commandLine, isRunning, listenerOf, portInUse, StateFile, stopRecorded } from './ownedProcesses.ts';
import { StartRefused, takeOver } from './takeOver.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'owned-'));
const children: ChildProcess[] = [];
/** A `sleep 60` of this test's own, once /proc shows it as one: just after it starts, its command line may read
 * empty. */
const sleeper = async () => {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  children.push(child);
  await waitFor(async () => commandLine(child.pid as number) === 'sleep 60' || undefined, 5_000, 'its command line');
  return child;
};
after(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('processes recorded by npm start', () => {
  it('stops a recorded process that is still the same one', async () => {
    const child = await sleeper();
    const exited = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    const state = new StateFile(path.join(dir, 'a.json'));
    state.record('anvil', child.pid as number);
    const [record] = new StateFile(state.file).list();
    assert.ok(record && isRunning(record));
    assert.equal(record.command, 'sleep 60');
    assert.equal(await stopRecorded(record), true);
    assert.ok(!isRunning(record));
    assert.equal(await exited, 'SIGTERM');
  });

  it('leaves alone a process that reuses a recorded PID (another start time)', async () => {
    const child = await sleeper();
    const state = new StateFile(path.join(dir, 'b.json'));
    state.record('anvil', child.pid as number);
    const reused = { ...(state.list()[0] as NonNullable<ReturnType<StateFile['list']>[0]>) };
    reused.startTime -= 1;
    assert.ok(!isRunning(reused));
    assert.equal(await stopRecorded(reused), false);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(child.exitCode, null, 'still running');
    assert.equal(child.signalCode, null);
  });

  it('takeOver stops what an earlier start left, but refuses while that start still runs', async () => {
    const dataDir = mkdtempSync(path.join(dir, 'data-'));
    const supervisor = await sleeper();
    const leftover = await sleeper();
    const earlier = new StateFile(path.join(dataDir, 'npm-start.json'));
    earlier.record('npm start', supervisor.pid as number);
    earlier.record('anvil', leftover.pid as number);
    await assert.rejects(
      takeOver(dataDir, () => {}),
      StartRefused,
    );
    assert.equal(leftover.exitCode, null, 'nothing stopped while the earlier start runs');

    supervisor.kill('SIGKILL');
    await new Promise((r) => supervisor.once('exit', r));
    const lines: string[] = [];
    const state = await takeOver(dataDir, (line) => lines.push(line));
    assert.match(lines.join('\n'), new RegExp(`Stopped anvil \\(pid ${leftover.pid}\\)`));
    assert.deepEqual(
      state.list().map((r) => [r.name, r.pid]),
      [['npm start', process.pid]],
    );
    const saved = JSON.parse(readFileSync(path.join(dataDir, 'npm-start.json'), 'utf8'));
    assert.equal(saved.processes[0].pid, process.pid);
  });

  it('names the process listening on a port', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    assert.equal(await portInUse(port), true);
    assert.equal(listenerOf(port)?.pid, process.pid);
    await new Promise((r) => server.close(r));
    assert.equal(await portInUse(port), false);
    assert.equal(listenerOf(port), undefined);
  });
});
