import type { SessionInfo, SessionQuery, SessionStore } from '../sessions.js';
import type { Database } from './database.js';

interface SessionRow {
  id: string;
  space: string;
  owner: string;
  created_at: string;
  last_used_at: string;
  metadata: Record<string, unknown>;
}

const COLUMNS = 'id, space, owner, created_at, last_used_at, metadata';

/**
 * The shared {@link SessionStore}: rows of `agent_spaces_sessions`, so every replica knows every session. `touch`
 * moves the last use forward only (`GREATEST`, in SQL), and the metadata fields given replace those of the same name,
 * the others kept (the merge `jsonb ||` makes, done under the row's lock so that concurrent touches lose nothing).
 */
export class PostgresSessionStore implements SessionStore {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

  async create(session: Omit<SessionInfo, 'lastUsedAt'>): Promise<boolean> {
    if (session.id.includes('\0')) return false;
    const rows = await this.#database.query(
      `INSERT INTO agent_spaces_sessions (${COLUMNS}) VALUES ($1, $2, $3, $4, $4, $5) ON CONFLICT (id) DO NOTHING RETURNING id`,
      [session.id, session.space, session.owner, session.createdAt, JSON.stringify(session.metadata)],
    );
    return rows.length === 1;
  }

  async touch(id: string, at: string, metadata?: Record<string, unknown>): Promise<boolean> {
    if (id.includes('\0')) return false;
    const used = 'UPDATE agent_spaces_sessions SET last_used_at = GREATEST(last_used_at, $2)';
    if (metadata === undefined) return (await this.#database.query(`${used} WHERE id = $1 RETURNING id`, [id, at])).length === 1;
    // Merged here, under the row's lock, as `||` would: PostgreSQL's JSON functions refuse strings holding a NUL.
    return this.#database.transaction(async (query) => {
      const [row] = await query<Pick<SessionRow, 'metadata'>>('SELECT metadata FROM agent_spaces_sessions WHERE id = $1 FOR UPDATE', [id]);
      if (!row) return false;
      await query(`${used}, metadata = $3 WHERE id = $1`, [id, at, JSON.stringify({ ...row.metadata, ...metadata })]);
      return true;
    });
  }

  async get(id: string): Promise<SessionInfo | undefined> {
    if (id.includes('\0')) return undefined;
    const [row] = await this.#database.query<SessionRow>(`SELECT ${COLUMNS} FROM agent_spaces_sessions WHERE id = $1`, [id]);
    return row && infoOf(row);
  }

  async list(query: SessionQuery = {}): Promise<SessionInfo[]> {
    if ([query.owner, query.space].some((value) => value?.includes('\0'))) return [];
    const rows = await this.#database.query<SessionRow>(
      `SELECT ${COLUMNS} FROM agent_spaces_sessions WHERE ($1::text IS NULL OR owner = $1) AND ($2::text IS NULL OR space = $2)
        ORDER BY last_used_at DESC, id`,
      [query.owner ?? null, query.space ?? null],
    );
    return rows.map(infoOf);
  }

  async end(id: string): Promise<boolean> {
    if (id.includes('\0')) return false;
    return (await this.#database.query('DELETE FROM agent_spaces_sessions WHERE id = $1 RETURNING id', [id])).length === 1;
  }
}

function infoOf(row: SessionRow): SessionInfo {
  return { id: row.id, space: row.space, owner: row.owner, createdAt: row.created_at, lastUsedAt: row.last_used_at, metadata: row.metadata };
}
