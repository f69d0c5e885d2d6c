import pg from 'pg';
import { BaseError } from '#api/errors/BaseError.ts';
import { causes } from '#api/lib/causes.ts';

// int8 (bigint) columns come back as strings by default; our ids and counters fit in a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
// numeric columns (wei amounts) stay strings: they exceed 2^53.

export type Queryable = Pick<pg.PoolClient, 'query'>;

export interface Db {
  readonly pool: pg.Pool;
  /**
   * Connections apart from `pool`, for session state such as advisory locks (see jobs/advisoryLock.ts): a session
   * held for a lock never takes a connection from the work it guards. Each is returned with nothing held.
   */
  readonly sessions: pg.Pool;
  /**
   * One statement. Give `name` to statements on hot paths: Postgres then parses and plans them once per connection
   * instead of at every call (a name must always go with the same text).
   */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values?: unknown[],
    name?: string,
  ): Promise<pg.QueryResult<R>>;
  /** Runs `fn` inside one transaction; rolls back when it throws. */
  transaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Raised for database failures, with the Postgres error as `cause`; unique violations get their own class. */
export class DatabaseError extends BaseError {
  override name = 'DatabaseError';
  readonly code = 'INTERNAL_ERROR';
  get pgCode(): string | undefined {
    return (this.cause as { code?: string } | undefined)?.code;
  }
}

export class UniqueViolationError extends DatabaseError {
  override name = 'UniqueViolationError';
  get constraint(): string | undefined {
    return (this.cause as { constraint?: string } | undefined)?.constraint;
  }
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND']);

/**
 * A PostgreSQL connection that failed or was cut: network errors, a Unix socket that is gone (the server is down),
 * shutdown (57P0x), connection class 08, a pool that could not connect in time.
 */
export function isConnectionLoss(error: unknown): boolean {
  for (const e of causes(error)) {
    const code = typeof e.code === 'string' ? e.code : '';
    if (NETWORK_CODES.has(code) || /^57P0[1-3]$/.test(code) || /^08/.test(code)) return true;
    if (code === 'ENOENT' && e.syscall === 'connect') return true;
    const message = typeof e.message === 'string' ? e.message : '';
    if (
      /Connection terminated|not queryable|the database system is (shutting down|starting up)|timeout exceeded when trying to connect/i.test(
        message,
      )
    )
      return true;
  }
  return false;
}

export function translateDbError(error: unknown): Error {
  if (error instanceof DatabaseError) return error;
  const code = (error as { code?: string }).code;
  if (code === '23505') return new UniqueViolationError((error as Error).message, { cause: error });
  if (typeof code === 'string' && code.length === 5)
    return new DatabaseError((error as Error).message, { cause: error });
  return error as Error;
}

/**
 * A pool of 20 connections by default: a worker process keeps one per lane for graphile-worker's LISTEN, and its
 * jobs and (in one process) the API share the rest.
 */
export function createDb(connectionString: string, options: { max?: number } = {}): Db {
  const pool = new pg.Pool({ connectionString, max: options.max ?? 20 });
  // An idle client losing its connection (e.g. Postgres restarting) must not crash the process.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const sessions = new pg.Pool({ connectionString, max: 64, idleTimeoutMillis: 10_000 });
  sessions.on('error', () => {});
  sessions.on('connect', (client) => client.on('error', () => {}));
  return {
    pool,
    sessions,
    async query(text, values, name) {
      try {
        return await (name ? pool.query({ name, text, values: values ?? [] }) : pool.query(text, values));
      } catch (error) {
        throw translateDbError(error);
      }
    },
    async transaction(fn) {
      const client = await pool.connect().catch((error) => {
        throw translateDbError(error);
      });
      try {
        await client.query('BEGIN');
        const result = await fn(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw translateDbError(error);
      } finally {
        client.release();
      }
    },
    close: async () => {
      await Promise.all([pool.end(), sessions.end()]);
    },
  };
}
