// The docs server of `npm start` and of the docs image, run as its own process:
// `node --import tsx serve.ts <build dir> <port> [host]` (compiled: `node serve.js …`; host 127.0.0.1 unless given).
// Prints `docs running at <origin>` once it listens; stops on SIGINT, SIGTERM, SIGHUP, or when the process that
// started it over IPC goes away.
import { serveBuild } from './staticServer.ts';

const [root, port, host] = process.argv.slice(2);
const site = await serveBuild(root, Number(port ?? 0), host);
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  site.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, stop);
process.on('disconnect', stop);
console.log(`docs running at ${site.origin} (pid ${process.pid})`);
