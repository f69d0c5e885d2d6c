// Node's test runner over the files named on the command line, in that order (`node --test <files>` sorts them by
// name), three at a time (MOUNTAIN_TEST_CONCURRENCY), with its spec reporter; exits 1 if a test failed. The files run in
// child processes with this process's flags (--enable-source-maps, or --import tsx).
import { run } from 'node:test';
import { spec } from 'node:test/reporters';

const concurrency = Number(process.env.MOUNTAIN_TEST_CONCURRENCY ?? 3);
const stream = run({ files: process.argv.slice(2), concurrency });
stream.on('test:fail', () => {
  process.exitCode = 1;
});
stream.compose(new spec()).pipe(process.stdout);
