import type { Pool, PoolClient } from 'pg';
import { PostgresApprovalStore } from './approvals.js';
import { PostgresAuditStore } from './audit.js';
import { storeError, unavailable } from './errors.js';
import { Listener } from './listener.js';
import { migrate, MIGRATIONS } from './migrations.js';
import { PostgresRunStore } from './runs.js';
import { PostgresSessionStore } from './sessions.js';

/** Options of {@link SharedDatabase.open}. */
export interface SharedDatabaseOptions {
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /** `application_name` of the connections (shown in `pg_stat_activity`). */
  applicationName?: string;
  /** How long to wait for a connection, new or from the pool, before failing `STORE_UNAVAILABLE`, in ms (default 5000). */
  connectTimeoutMs?: number;
}

/** Runs one statement and returns its rows. */
export type Query = <R = Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<R[]>;

/** What the PostgreSQL stores use of a {@link SharedDatabase}. */
export interface Database {
  query: Query;
  transaction<T>(fn: (query: Query) => Promise<T>): Promise<T>;
  listen(channel: string, onMessage: (payload: string) => void): Promise<() => Promise<void>>;
  notify(channel: string, payload: string): Promise<void>;
}

type Pg = (typeof import('pg'))['default'];

/**
 * The one place that talks to PostgreSQL: a connection pool shared by the stores it hands out (approvals, runs,
 * sessions, each space's audit), which several server replicas can share. Opening it applies the schema's
 * {@link MIGRATIONS}. Every failure to reach the server — refused or lost connection, no connection within
 * `connectTimeoutMs`, a server shutting down — rejects `STORE_UNAVAILABLE` (data `{ store: 'postgres' }`); an error the
 * server returns for a statement is `INTERNAL`. The pool recovers by itself when the server comes back: idle
 * connections that died are dropped, new ones are made.
 */
export class SharedDatabase implements Database {
  readonly #pool: Pool;
  readonly #pg: Pg;
  readonly #listener: Listener;
  #closed = false;
  #approvals: PostgresApprovalStore | undefined;
  #runs: PostgresRunStore | undefined;
  #sessions: PostgresSessionStore | undefined;

  private constructor(pg: Pg, url: string, options: SharedDatabaseOptions) {
    this.#pg = pg;
    const config = {
      connectionString: url,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
      keepAlive: true,
      ...(options.applicationName ? { application_name: options.applicationName } : {}),
    };
    this.#pool = new pg.Pool({ ...config, max: options.poolSize ?? 10 });
    // An idle connection whose server went away: the pool drops it; without a listener the error would end the process.
    this.#pool.on('error', () => undefined);
    this.#listener = new Listener(() => new pg.Client(config));
  }

  /**
   * Connects to the database at `url` (a `postgres://` URL) and applies the migrations it lacks (one transaction
   * each, under an advisory lock: replicas opening it together apply each once). Rejects `STORE_UNAVAILABLE` when
   * the server cannot be reached.
   */
  static async open(url: string, options: SharedDatabaseOptions = {}): Promise<SharedDatabase> {
    const pg = (await import('pg')).default;
    const database = new SharedDatabase(pg, url, options);
    try {
      await migrate((fn) => database.transaction(fn), MIGRATIONS);
    } catch (error) {
      await database.close();
      throw error;
    }
    return database;
  }

  /** Runs `sql` with `params` ($1, $2, …) on a pooled connection; its rows. */
  async query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]> {
    this.#assertOpen();
    try {
      const result = params === undefined ? await this.#pool.query(sql) : await this.#pool.query(sql, params);
      return result.rows as R[];
    } catch (error) {
      throw this.#error(error);
    }
  }

  /** Runs `fn` in a transaction on one connection: committed when it resolves, rolled back when it throws. */
  async transaction<T>(fn: (query: Query) => Promise<T>): Promise<T> {
    this.#assertOpen();
    let client: PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw this.#error(error);
    }
    let broken: Error | undefined;
    const query: Query = async (sql, params) => (params === undefined ? await client.query(sql) : await client.query(sql, params)).rows;
    try {
      await client.query('BEGIN');
      const value = await fn(query);
      await client.query('COMMIT');
      return value;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollback: Error) => (broken = rollback));
      throw this.#error(error);
    } finally {
      // A connection that could not even roll back is destroyed, not handed out again.
      client.release(broken);
    }
  }

  /**
   * Calls `onMessage` with the payload of each notification on `channel` (from any process), on a dedicated
   * connection that listens again after the server comes back (notifications sent meanwhile are lost). Resolves once
   * listening, with the function that stops; rejects `STORE_UNAVAILABLE` when the server cannot be reached now.
   */
  async listen(channel: string, onMessage: (payload: string) => void): Promise<() => Promise<void>> {
    this.#assertOpen();
    try {
      return await this.#listener.listen(channel, onMessage);
    } catch (error) {
      throw this.#error(error);
    }
  }

  /** Sends `payload` to the listeners of `channel` (`pg_notify`), in every process. */
  async notify(channel: string, payload: string): Promise<void> {
    await this.query('SELECT pg_notify($1, $2)', [channel, payload]);
  }

  /** The approval store (one per database object). */
  get approvals(): PostgresApprovalStore {
    return (this.#approvals ??= new PostgresApprovalStore(this));
  }

  /** The run store (one per database object; the records of runs in progress stay in this process). */
  get runs(): PostgresRunStore {
    return (this.#runs ??= new PostgresRunStore(this));
  }

  /** The session store (one per database object). */
  get sessions(): PostgresSessionStore {
    return (this.#sessions ??= new PostgresSessionStore(this));
  }

  /** A new audit store for `space` (closing it does not close the database). */
  audit(space: string): PostgresAuditStore {
    return new PostgresAuditStore(this, space);
  }

  /** Stops listening and closes the pool; later queries reject `STORE_UNAVAILABLE`. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#approvals?.close();
    await this.#listener.close();
    await this.#pool.end().catch(() => undefined);
  }

  #assertOpen(): void {
    if (this.#closed) throw unavailable('the database was closed');
  }

  #error(error: unknown) {
    return storeError(error, (e) => e instanceof this.#pg.DatabaseError);
  }
}
