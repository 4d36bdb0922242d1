import { MemoryRunStore, type KeptRun, type RunQuery } from '../runs.js';
import type { Database } from './database.js';

/** Options of {@link PostgresRunStore}. */
export interface PostgresRunStoreOptions {
  /** How many ended runs stay readable through `get`/`list` (default 0, as in {@link MemoryRunStore}). */
  keepEnded?: number;
  /** Kept runs that ended longer ago than this are removed as kept runs are first listed (default 7 days). */
  keepEndedMs?: number;
}

const DAY_MS = 86_400_000;

/**
 * The shared {@link RunStore}: the records of runs in progress in this process's memory (no I/O on a run's or
 * call's path), and the kept runs — paused ones and a session's — rows of `agent_spaces_kept_runs`, so any replica
 * can resume or restore them. `keep` resolves once the row is committed (rejects `STORE_UNAVAILABLE` when PostgreSQL
 * cannot be reached).
 */
export class PostgresRunStore extends MemoryRunStore {
  readonly #database: Database;
  readonly #keepEndedMs: number;
  #pruned = false;
  /** The replica whose runs this store keeps (`KeptRun.replica`), when the process is one of a service's replicas. */
  replica: string | undefined;

  constructor(database: Database, options: PostgresRunStoreOptions = {}) {
    super(options.keepEnded === undefined ? {} : { keepEnded: options.keepEnded });
    this.#database = database;
    this.#keepEndedMs = options.keepEndedMs ?? 7 * DAY_MS;
  }

  override async keep(given: KeptRun): Promise<void> {
    if (given.id.includes('\0')) return;
    const run = this.replica === undefined ? given : { ...given, replica: this.replica };
    await this.#database.query(
      `INSERT INTO agent_spaces_kept_runs (id, space, owner, session_id, status, started_at, run_order, ended_at, run)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (id) DO UPDATE SET space = $2, owner = $3, session_id = $4, status = $5, started_at = $6, run_order = $7, ended_at = $8, run = $9`,
      [run.id, run.space, run.owner ?? null, run.sessionId ?? null, run.status, run.startedAt, run.order ?? null, run.endedAt ?? null, JSON.stringify(run)],
    );
  }

  override async kept(runId: string): Promise<KeptRun | undefined> {
    if (runId.includes('\0')) return undefined;
    const [row] = await this.#database.query<{ run: KeptRun }>('SELECT run FROM agent_spaces_kept_runs WHERE id = $1', [runId]);
    return row?.run;
  }

  /** The kept runs `query` selects, oldest start first (`order` breaking ties). */
  override async keptRuns(query: RunQuery = {}): Promise<KeptRun[]> {
    // PostgreSQL text holds no NUL character: a value with one names no stored run.
    if (Object.values(query).some((value) => typeof value === 'string' && value.includes('\0'))) return [];
    await this.#prune();
    const rows = await this.#database.query<{ run: KeptRun }>(
      `SELECT run FROM agent_spaces_kept_runs
        WHERE ($1::text IS NULL OR space = $1) AND ($2::text IS NULL OR owner = $2)
          AND ($3::text IS NULL OR session_id = $3) AND ($4::text IS NULL OR status = $4)
        ORDER BY started_at, COALESCE(run_order, 0), id`,
      [query.space ?? null, query.owner ?? null, query.sessionId ?? null, query.status ?? null],
    );
    return rows.map((row) => row.run);
  }

  override async forget(runId: string): Promise<void> {
    if (runId.includes('\0')) return;
    await this.#database.query('DELETE FROM agent_spaces_kept_runs WHERE id = $1', [runId]);
  }

  /** Removes, once per store, the kept runs that ended longer than `keepEndedMs` ago. */
  async #prune(): Promise<void> {
    if (this.#pruned) return;
    await this.#database.query('DELETE FROM agent_spaces_kept_runs WHERE ended_at < $1', [new Date(Date.now() - this.#keepEndedMs)]);
    this.#pruned = true;
  }
}
