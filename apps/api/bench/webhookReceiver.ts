// The loopback webhook receiver of bench:events, in its own process: answers 200 at once and notes when each
// webhook-id first arrived. The parent asks for `count` or `times` over IPC.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const received = new Map<string, number>();
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const id = String(req.headers['webhook-id']);
    if (!received.has(id)) received.set(id, Date.now());
    res.writeHead(200).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send?.((server.address() as AddressInfo).port));
process.on('message', (question) => {
  if (question === 'count') process.send?.(received.size);
  else if (question === 'times') process.send?.([...received]);
});
process.on('SIGTERM', () => process.exit(0));
process.on('disconnect', () => process.exit(0));
