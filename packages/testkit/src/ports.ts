import { closeSync, mkdirSync, openSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * The ports handed out here: below the kernel's ephemeral range (32768–60999 on Linux), so that neither an outgoing
 * connection nor another program's `listen(0)` can take one between the moment it is handed out and the moment its
 * server listens.
 */
const FIRST = 20_000;
const LAST = 32_000;
/** One file a port handed out, made with O_EXCL: two processes (two test files run at once) never get the same port.
 * A process removes its own at exit; a file older than this is left by a process that was killed, and is taken. */
const RESERVATIONS = path.join(os.tmpdir(), 'mountain-ports');
const STALE_MS = 30 * 60_000;
const mine: string[] = [];

function reserve(port: number): boolean {
  const file = path.join(RESERVATIONS, String(port));
  try {
    closeSync(openSync(file, 'wx'));
  } catch {
    try {
      if (Date.now() - statSync(file).mtimeMs < STALE_MS) return false;
      rmSync(file, { force: true });
      closeSync(openSync(file, 'wx'));
    } catch {
      return false;
    }
  }
  if (mine.length === 0)
    process.once('exit', () => {
      for (const f of mine) rmSync(f, { force: true });
    });
  mine.push(file);
  return true;
}

function listens(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A TCP port that is free on loopback right now and that no other caller of this function, in this process or
 * another, is handed while this process lives. */
export async function freePort(): Promise<number> {
  mkdirSync(RESERVATIONS, { recursive: true, mode: 0o1777 });
  for (let tries = 0; tries < 1000; tries++) {
    const port = FIRST + Math.floor(Math.random() * (LAST - FIRST));
    if (reserve(port) && (await listens(port))) return port;
  }
  throw new Error(`freePort: no free port between ${FIRST} and ${LAST}`);
}
