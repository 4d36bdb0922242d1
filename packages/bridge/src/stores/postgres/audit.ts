import { AgentSpacesError } from '@agent-spaces/capabilities';
import { auditRecordOf, checkAuditSpace, type AuditCallRecord, type AuditEntry, type AuditRecord } from '../audit-log.js';
import type { AuditRead } from '../audit-read.js';
import type { AuditArchive, AuditQuery, AuditStore } from '../audit.js';
import type { Database } from './database.js';

/** Rows read at a time when an archive streams records. */
const PAGE = 500;

/**
 * The shared {@link AuditStore} of one space: its records are rows of one table for every space
 * (`agent_spaces_audit`: the space, the time, the record as JSON, an increasing id that orders them). `append`
 * resolves once the row is committed and rejects `STORE_UNAVAILABLE` when PostgreSQL cannot be reached — the call
 * then fails, and the record is not on it. Params are cut past 8 KiB, as in the file store.
 */
export class PostgresAuditStore implements AuditStore {
  readonly #database: Database;
  /** Appends not yet settled: `calls` waits for them, so it reads every append made before it. */
  readonly #inFlight = new Set<Promise<unknown>>();
  #closed = false;

  /** The store of `space` in `database`; `CONFIG_INVALID` for a name the file store could not hold either. */
  constructor(
    database: Database,
    readonly space: string,
  ) {
    checkAuditSpace(space);
    this.#database = database;
  }

  /** Inserts `entry`'s record; throws at once once closed. */
  append(entry: AuditEntry): Promise<void> {
    if (this.#closed) throw new AgentSpacesError('INTERNAL', `The audit store of space ${this.space} is closed`);
    const record = auditRecordOf(entry, this.space);
    const inserted = this.#database.query('INSERT INTO agent_spaces_audit (space, time, ended, entry) VALUES ($1, $2, $3, $4)', [
      this.space,
      record.time,
      record.pending === undefined,
      JSON.stringify(record),
    ]);
    const settled: Promise<unknown> = inserted.then(
      () => this.#inFlight.delete(settled),
      () => this.#inFlight.delete(settled),
    );
    this.#inFlight.add(settled);
    return inserted.then(() => undefined);
  }

  /** The ended calls at or after `since`, by time (then by the order they were put on record). */
  async calls(since: Date): Promise<AuditRead> {
    await Promise.all(this.#inFlight);
    const rows = await this.#database.query<{ entry: AuditCallRecord }>(
      'SELECT entry FROM agent_spaces_audit WHERE space = $1 AND time >= $2 AND ended ORDER BY time, id',
      [this.space, since],
    );
    return { records: rows.map((row) => row.entry), malformed: 0 };
  }

  /** Stops appending (the database stays open: its owner closes it). */
  close(): void {
    this.#closed = true;
  }
}

/**
 * The read side of the shared audit table: every space's records (or one space's), oldest first, read a page at a
 * time however many there are.
 */
export class PostgresAuditArchive implements AuditArchive {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

  records(query: AuditQuery = {}): AsyncIterable<AuditRecord> {
    const { space, since } = query;
    if (space !== undefined) checkAuditSpace(space);
    const database = this.#database;
    return (async function* () {
      let after: { time: Date; id: string } | undefined;
      for (;;) {
        const rows = await database.query<{ id: string; time: Date; entry: AuditRecord }>(
          `SELECT id, time, entry FROM agent_spaces_audit
            WHERE ($1::text IS NULL OR space = $1) AND ($2::timestamptz IS NULL OR time >= $2)
              AND ($3::timestamptz IS NULL OR (time, id) > ($3, $4::bigint))
            ORDER BY time, id LIMIT ${PAGE}`,
          [space ?? null, since ?? null, after?.time ?? null, after?.id ?? null],
        );
        for (const row of rows) yield row.entry;
        if (rows.length < PAGE) return;
        const last = rows.at(-1)!;
        after = { time: last.time, id: last.id };
      }
    })();
  }
}
