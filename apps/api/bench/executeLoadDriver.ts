// The benchmarks' side of executeLoad.ts: the load generator in a child process of its own, kept for the whole
// section (its connections stay open from one run to the next), driven one run at a time.
import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Stop } from './benchDatabase.ts';

/** One run's answer: requests answered 2xx, other statuses, connection errors, latency from each due time (ms). */
export interface ExecuteLoadResult {
  accepted: number;
  non2xx: number;
  errors: number;
  p50: number;
  p99: number;
}

/**
 * Starts the generator for execute-transaction of `functionId` at `url` with `apiKey`, over at most `connections`
 * sockets; stopped with the section (`stops`). Answers a function that drives `rate` requests/s for `seconds`.
 */
export function startExecuteLoad(
  target: { url: string; apiKey: string; functionId: number | undefined; connections: number },
  stops: Stop[],
): (rate: number, seconds: number) => Promise<ExecuteLoadResult> {
  const load = fork(path.join(path.dirname(fileURLToPath(import.meta.url)), 'executeLoad.ts'), {
    execArgv: ['--import', 'tsx'],
  });
  stops.push(() => load.kill());
  return (rate, seconds) =>
    new Promise((resolve, reject) => {
      const exited = (code: number | null) => reject(new Error(`load generator exited with ${code}`));
      load.once('exit', exited);
      load.once('message', (m) => {
        load.off('exit', exited);
        resolve(m as ExecuteLoadResult);
      });
      load.send({ ...target, rate, seconds });
    });
}
