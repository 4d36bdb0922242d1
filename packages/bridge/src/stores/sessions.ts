/** What is on record about one session (a series of runs sharing one context, or an agent conversation). */
export interface SessionInfo {
  id: string;
  /** The space it runs in (the server's space id). */
  space: string;
  /** Who it belongs to (the server: the MCP connection that created it). */
  owner: string;
  /** ISO-8601. */
  createdAt: string;
  /** ISO-8601; never moves back. */
  lastUsedAt: string;
  /**
   * What the host keeps per session besides, as plain data (the server: how many runs, their history, the
   * conversation of an agent session).
   */
  metadata: Record<string, unknown>;
}

/** Which sessions {@link SessionStore.list} returns: those matching every field given. */
export interface SessionQuery {
  owner?: string;
  space?: string;
}

/**
 * Where sessions are put on record: created when a session is, touched as it is used, ended (forgotten) when it is
 * closed, times out or is evicted. The live session (its sandbox context) stays in the process that holds it.
 */
export interface SessionStore {
  /** Puts a new session on record, used last at `createdAt`; false (and nothing recorded) when its id is taken. */
  create(session: Omit<SessionInfo, 'lastUsedAt'>): Promise<boolean>;
  /**
   * Marks session `id` used at `at` (a time before its last use leaves that as it is) and sets the `metadata` fields
   * given, keeping the others; false when no such session is on record.
   */
  touch(id: string, at: string, metadata?: Record<string, unknown>): Promise<boolean>;
  /** The record of session `id` (a copy), or undefined. */
  get(id: string): Promise<SessionInfo | undefined>;
  /** The records `query` selects (copies), most recently used first. */
  list(query?: SessionQuery): Promise<SessionInfo[]>;
  /** Takes session `id` off the record; false when it was not on it. */
  end(id: string): Promise<boolean>;
}

/** The embedded {@link SessionStore}: records in memory, as long as the store lives (the server's sessions live as long). */
export class MemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, SessionInfo>();

  async create(session: Omit<SessionInfo, 'lastUsedAt'>): Promise<boolean> {
    if (this.#sessions.has(session.id)) return false;
    this.#sessions.set(session.id, { ...session, lastUsedAt: session.createdAt, metadata: { ...session.metadata } });
    return true;
  }

  async touch(id: string, at: string, metadata?: Record<string, unknown>): Promise<boolean> {
    const session = this.#sessions.get(id);
    if (!session) return false;
    if (at > session.lastUsedAt) session.lastUsedAt = at;
    if (metadata) Object.assign(session.metadata, metadata);
    return true;
  }

  async get(id: string): Promise<SessionInfo | undefined> {
    const session = this.#sessions.get(id);
    return session && copy(session);
  }

  async list(query: SessionQuery = {}): Promise<SessionInfo[]> {
    return [...this.#sessions.values()]
      .filter((s) => (query.owner === undefined || s.owner === query.owner) && (query.space === undefined || s.space === query.space))
      .sort((a, b) => b.lastUsedAt.localeCompare(a.lastUsedAt))
      .map(copy);
  }

  async end(id: string): Promise<boolean> {
    return this.#sessions.delete(id);
  }
}

function copy(session: SessionInfo): SessionInfo {
  return { ...session, metadata: { ...session.metadata } };
}
