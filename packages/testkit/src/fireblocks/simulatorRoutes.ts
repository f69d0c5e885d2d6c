import type { AssetConfig } from './assetChains.ts';
import type { SimulatorStateData } from './simulatorState.ts';
import type { TransactionEngine } from './transactionEngine.ts';

/** What a handler sees of a request. */
/** The path parameters the routes' templates name. */
export type PathParams = Record<'vaultAccountId' | 'assetId' | 'txId' | 'externalTxId', string>;

export interface RouteRequest {
  params: PathParams;
  query: URLSearchParams;
  body: unknown;
  apiKey: string;
}

export interface RouteAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** What handlers share: the state, the engine and the configured assets. */
export interface SimulatorContext {
  state: SimulatorStateData;
  engine: TransactionEngine;
  assets: Record<string, AssetConfig>;
  /** The API's base URL, for paging links: http://127.0.0.1:<port>/v1. */
  baseUrl: string;
  persist(): void;
}

export interface RouteDefinition {
  method: string;
  /** Path without /v1, with `{name}` segments, as the SDK's api files write it. */
  template: string;
  handle(ctx: SimulatorContext, request: RouteRequest): Promise<RouteAnswer> | RouteAnswer;
}

/** The route a method and path (without /v1) fall under, with its path parameters decoded. */
export function matchRoute(routes: RouteDefinition[], method: string, path: string) {
  const segments = path.split('/').filter(Boolean);
  for (const route of routes) {
    if (route.method !== method) continue;
    const parts = route.template.split('/').filter(Boolean);
    if (parts.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let matched = true;
    parts.forEach((part, i) => {
      const segment = segments[i] as string;
      if (!matched) return;
      if (part.startsWith('{')) {
        try {
          params[part.slice(1, -1)] = decodeURIComponent(segment);
        } catch {
          matched = false;
        }
      } else matched = part === segment;
    });
    if (matched) return { route, params: params as PathParams };
  }
  return undefined;
}

/** An opaque paging cursor: the offset into a sorted listing. */
export const cursor = {
  encode: (offset: number) => Buffer.from(JSON.stringify({ offset })).toString('base64url'),
  decode(value: string | null): number | undefined {
    if (!value) return undefined;
    try {
      const offset = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')).offset;
      return Number.isSafeInteger(offset) && offset >= 0 ? offset : undefined;
    } catch {
      return undefined;
    }
  },
};

/** `limit` of a listing: default when absent, an integer in 1…max, else undefined (refused). */
export function pageLimit(raw: string | null, fallback: number, max: number): number | undefined {
  if (raw === null || raw === '') return fallback;
  const limit = Number(raw);
  return Number.isInteger(limit) && limit >= 1 && limit <= max ? limit : undefined;
}
