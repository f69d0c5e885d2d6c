import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { type CurveOps, inThisThread } from './ethereumSignature.ts';

/**
 * The thread's program: plain JavaScript (it runs the same under tsx, bundled and built), loading tiny-secp256k1
 * from the path this module resolves. It only runs the curve operations asked of it; what they mean (which signer is
 * the wallet's) is decided by the caller (ethereumSignature.ts).
 */
const PROGRAM = `
const { parentPort, workerData } = require('node:worker_threads');
const { recover, pointFromScalar, pointAdd } = require(workerData.library);
parentPort.on('message', ({ id, op, a, b, c }) => {
  let result = null;
  let error;
  try {
    if (op === 'recover') result = recover(a, b, c, false);
    else {
      const tG = pointFromScalar(b, false);
      result = tG && pointAdd(a, tG, false);
    }
  } catch (e) {
    error = String((e && e.message) || e);
  }
  parentPort.postMessage({ id, result, error });
});
`;

type Op = { op: 'recover'; a: Uint8Array; b: Uint8Array; c: 0 | 1 } | { op: 'add'; a: Uint8Array; b: Uint8Array };

/** What `op` gives in this thread: when no other thread can do it. */
function here(op: Op): Uint8Array | null {
  return op.op === 'recover' ? inThisThread.recover(op.a, op.b, op.c) : inThisThread.addMultipleOfG(op.a, op.b);
}

/**
 * Curve operations in a thread of their own: a KMS signature's recovery id costs about half a millisecond of
 * libsecp256k1 (WebAssembly) that would otherwise run on the sender's event loop, between the SDK's requests. One
 * thread, started at the first use; it keeps the process alive only while it has work. On a single-CPU machine, or
 * when the thread cannot start or dies, the operations run in this thread (what was waiting is done here).
 */
export function curveThread(): CurveOps {
  if (availableParallelism() < 2) return inThisThread;
  let worker: Worker | undefined;
  let broken = false;
  let next = 0;
  const pending = new Map<
    number,
    { op: Op; resolve: (point: Uint8Array | null) => void; reject: (e: Error) => void }
  >();

  const fail = () => {
    broken = true;
    worker = undefined;
    for (const { op, resolve, reject } of pending.values()) {
      try {
        resolve(here(op));
      } catch (error) {
        reject(error as Error);
      }
    }
    pending.clear();
  };
  const start = () => {
    const library = createRequire(import.meta.url).resolve('tiny-secp256k1');
    // Without this process's execArgv (a TypeScript loader under tsx): the program is plain JavaScript, and so starts
    // in a tenth of a second rather than several.
    const started = new Worker(PROGRAM, { eval: true, workerData: { library }, execArgv: [] });
    started.on('message', ({ id, result, error }: { id: number; result: Uint8Array | null; error?: string }) => {
      const waiting = pending.get(id);
      if (!waiting) return;
      pending.delete(id);
      if (pending.size === 0) started.unref();
      if (error !== undefined) waiting.reject(new Error(error));
      else waiting.resolve(result ? new Uint8Array(result) : null);
    });
    started.on('error', fail);
    started.on('exit', fail);
    started.unref();
    return started;
  };
  const run = (op: Op): Promise<Uint8Array | null> | Uint8Array | null => {
    if (broken) return here(op);
    if (!worker) {
      try {
        worker = start();
      } catch {
        broken = true;
        return here(op);
      }
    }
    const id = next++;
    if (pending.size === 0) worker.ref();
    return new Promise((resolve, reject) => {
      pending.set(id, { op, resolve, reject });
      worker?.postMessage({ id, ...op });
    });
  };
  return {
    recover: (digest, compact, id) => run({ op: 'recover', a: digest, b: compact, c: id }),
    addMultipleOfG: (point, t) => run({ op: 'add', a: point, b: t }),
  };
}
