export interface JsonRpcCall {
  jsonrpc?: '2.0';
  id?: unknown;
  method: string;
  params?: unknown[];
}

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcAnswer {
  jsonrpc?: '2.0';
  id?: unknown;
  result?: unknown;
  error?: JsonRpcError;
}

/** A node answered a JSON-RPC call with an error, or did not answer it at all (then `code` is undefined). */
export class RpcCallError extends Error {
  override name = 'RpcCallError';
  readonly data: unknown;
  constructor(
    readonly method: string,
    readonly code: number | undefined,
    message: string,
    options?: { cause?: unknown; data?: unknown },
  ) {
    super(`${method}: ${message}`, options);
    this.data = options?.data;
  }
}

let nextId = 1;

/** One JSON-RPC call over HTTP; the result, or an RpcCallError carrying the node's code and message. */
export async function rpcCall<T = unknown>(url: string, method: string, params: unknown[] = []): Promise<T> {
  let answer: JsonRpcAnswer;
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
    });
    answer = (await res.json()) as JsonRpcAnswer;
  } catch (cause) {
    throw new RpcCallError(method, undefined, `no answer from ${url}`, { cause });
  }
  if (answer.error) {
    throw new RpcCallError(method, answer.error.code, answer.error.message, { data: answer.error.data });
  }
  return answer.result as T;
}

/**
 * The same method with each of `paramsList`, in one JSON-RPC batch (one HTTP request); the results in the same
 * order, or an RpcCallError for the first call the node refused.
 */
export async function rpcBatch<T = unknown>(url: string, method: string, paramsList: unknown[][]): Promise<T[]> {
  if (paramsList.length === 0) return [];
  const first = nextId;
  nextId += paramsList.length;
  let answers: JsonRpcAnswer[];
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(paramsList.map((params, i) => ({ jsonrpc: '2.0', id: first + i, method, params }))),
    });
    answers = (await res.json()) as JsonRpcAnswer[];
  } catch (cause) {
    throw new RpcCallError(method, undefined, `no answer from ${url}`, { cause });
  }
  const byId = new Map(answers.map((a) => [a.id, a]));
  return paramsList.map((_, i) => {
    const answer = byId.get(first + i);
    if (!answer) throw new RpcCallError(method, undefined, `no answer to call ${i + 1} of the batch`);
    if (answer.error) {
      throw new RpcCallError(method, answer.error.code, answer.error.message, { data: answer.error.data });
    }
    return answer.result as T;
  });
}

/** `0x`-prefixed hex quantity, as JSON-RPC takes numbers. */
export const toQuantity = (n: bigint | number): `0x${string}` => `0x${BigInt(n).toString(16)}`;
