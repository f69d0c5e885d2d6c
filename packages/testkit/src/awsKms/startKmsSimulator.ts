import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { KMS_ACTIONS } from './kmsActions.ts';
import { KmsError, KmsErrors } from './kmsErrors.ts';
import { type KmsFaultSettings, KmsFaults } from './kmsFaults.ts';
import { type KeySpec, type KeyState, KmsKeyStore } from './kmsKeyStore.ts';
import { type KmsCredentials, verifySigV4 } from './verifySigV4.ts';

export interface KmsSimulatorOptions {
  /** The region the endpoint serves; requests must be signed for it (default us-east-1). */
  region?: string;
  /** The simulated AWS account (default 111122223333, AWS's example account). */
  accountId?: string;
  /** A JSON file keeping keys and aliases across restarts. */
  statePath?: string;
  port?: number;
  /** Largest request body (default 64 KiB; a Sign message is at most 4096 bytes). */
  bodyLimitBytes?: number;
}

export interface KmsSimulator {
  /** The endpoint (`AWS_KMS_ENDPOINT`, the SDK's `endpoint`): http://127.0.0.1:<port>. */
  url: string;
  region: string;
  accountId: string;
  /** A new IAM user with an access key; `deniedActions` are refused with AccessDeniedException. */
  createUser(options?: { name?: string; deniedActions?: string[]; sessionToken?: boolean }): {
    accessKeyId: string;
    secretAccessKey: string;
    sessionToken?: string;
  };
  /** Adds a known access key (for a fixed development key pair). */
  registerUser(credentials: KmsCredentials): void;
  faults: { set(settings: KmsFaultSettings): void; clear(): void };
  /** The keys as KMS holds them (without private material). */
  keys(): { keyId: string; arn: string; keySpec: KeySpec; state: KeyState; tags: Record<string, string> }[];
  aliases(): { aliasName: string; targetKeyId: string }[];
  /** Requests received, by action (e.g. 'Sign'), authenticated or not. */
  requests: Record<string, number>;
  /** Requests carried out (answered 200), by action: `succeeded.Sign` is how many signatures were made. */
  succeeded: Record<string, number>;
  stop(): Promise<void>;
}

/**
 * Starts an AWS KMS simulator on 127.0.0.1: the JSON 1.1 API (`POST /`, `X-Amz-Target: TrentService.<Action>`,
 * `Content-Type: application/x-amz-json-1.1`) with Signature Version 4 verified against the access keys it knows,
 * the actions in kmsActions.ts, AWS's error shapes, and switchable faults (see packages/testkit/README.md).
 */
export async function startKmsSimulator(options: KmsSimulatorOptions = {}): Promise<KmsSimulator> {
  const region = options.region ?? 'us-east-1';
  const accountId = options.accountId ?? '111122223333';
  const bodyLimit = options.bodyLimitBytes ?? 64 * 1024;
  const store = new KmsKeyStore(region, accountId, options.statePath);
  const users = new Map<string, KmsCredentials>();
  const faults = new KmsFaults();
  const requests: Record<string, number> = {};
  const succeeded: Record<string, number> = {};
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    if (res.destroyed || res.headersSent) return;
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/x-amz-json-1.1',
      'content-length': Buffer.byteLength(text),
      'x-amzn-requestid': randomUUID(),
    });
    res.end(text);
  };
  const sendError = (res: http.ServerResponse, error: unknown) => {
    const e = error instanceof KmsError ? error : KmsErrors.internal();
    send(res, e.status, e.body());
  };

  const readBody = (req: http.IncomingMessage) =>
    new Promise<Buffer | undefined>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= bodyLimit) chunks.push(chunk);
      });
      req.on('end', () => resolve(size > bodyLimit ? undefined : Buffer.concat(chunks)));
      req.on('error', reject);
    });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const body = await readBody(req);
    const targetHeader = req.headers['x-amz-target'];
    const target = typeof targetHeader === 'string' ? targetHeader : '';
    const action = target.startsWith('TrentService.') ? target.slice('TrentService.'.length) : '';
    requests[action || '(none)'] = (requests[action || '(none)'] ?? 0) + 1;
    const latency = faults.latencyFor(action);
    if (latency) await sleep(latency);
    if (faults.current.unreachable) {
      req.socket.destroy();
      return;
    }
    if (!body) return sendError(res, KmsErrors.bodyTooLarge());
    let caller: KmsCredentials;
    try {
      caller = verifySigV4(
        { method: req.method ?? 'GET', target: req.url ?? '/', headers: req.headers, body },
        users,
        region,
      );
    } catch (error) {
      return sendError(res, error);
    }
    const run = KMS_ACTIONS[action];
    if (req.method !== 'POST' || !run) return sendError(res, KmsErrors.unknownOperation());
    if (faults.take('throttling', action)) return sendError(res, KmsErrors.throttling());
    if (caller.deniedActions?.includes(action)) {
      return sendError(res, KmsErrors.accessDenied(caller.userArn, action, `arn:aws:kms:${region}:${accountId}:*`));
    }
    const serverError = faults.take('serverError', action);
    if (serverError) return sendError(res, KmsErrors.internal(serverError.status ?? 500));
    let input: unknown;
    try {
      input = body.length === 0 ? {} : JSON.parse(body.toString('utf8'));
    } catch {
      return sendError(res, KmsErrors.serialization('Unexpected character: the body is not JSON'));
    }
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      return sendError(res, KmsErrors.serialization('Start of structure or map expected'));
    }
    try {
      const output = run(store, input as Record<string, unknown>);
      succeeded[action] = (succeeded[action] ?? 0) + 1;
      send(res, 200, output);
    } catch (error) {
      sendError(res, error);
    }
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error) => sendError(res, error));
  });
  server.on('connection', (socket: Socket) => {
    if (faults.current.unreachable) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    region,
    accountId,
    createUser(userOptions = {}) {
      const accessKeyId = `AKIA${randomBytes(8).toString('hex').toUpperCase()}`;
      const secretAccessKey = randomBytes(30).toString('base64').slice(0, 40);
      const sessionToken = userOptions.sessionToken ? randomBytes(48).toString('base64') : undefined;
      users.set(accessKeyId, {
        accessKeyId,
        secretAccessKey,
        ...(sessionToken ? { sessionToken } : {}),
        userArn: `arn:aws:iam::${accountId}:user/${userOptions.name ?? 'mountain'}`,
        ...(userOptions.deniedActions ? { deniedActions: userOptions.deniedActions } : {}),
      });
      return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
    },
    registerUser(credentials) {
      users.set(credentials.accessKeyId, credentials);
    },
    faults: {
      set(settings) {
        faults.set(settings);
        if (settings.unreachable) for (const socket of sockets) socket.destroy();
      },
      clear: () => faults.clear(),
    },
    keys: () =>
      [...store.keys.values()].map((k) => ({
        keyId: k.keyId,
        arn: store.arn(k.keyId),
        keySpec: k.keySpec,
        state: k.state,
        tags: { ...k.tags },
      })),
    aliases: () => [...store.aliases.values()].map((a) => ({ aliasName: a.aliasName, targetKeyId: a.targetKeyId })),
    requests,
    succeeded,
    async stop() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
    },
  };
}
