import type { SessionInfo, SessionQuery, SessionStore } from './sessions.js';
import { RecordFolder, isSafeId, stateFolder } from './state-files.js';

/**
 * The durable {@link SessionStore}: one file per session under `<outDir>/state/sessions/`, written atomically, so a
 * restarted server knows the sessions it held (and restores one, from its kept runs, when its client comes back).
 * Records are small (the server keeps a bounded history in `metadata`).
 */
export class FileSessionStore implements SessionStore {
  readonly #folder: RecordFolder;

  constructor(outDir: string) {
    this.#folder = new RecordFolder(stateFolder(outDir, 'sessions'));
  }

  async create(session: Omit<SessionInfo, 'lastUsedAt'>): Promise<boolean> {
    if (!isSafeId(session.id)) return false;
    return this.#folder.create(session.id, { ...session, lastUsedAt: session.createdAt });
  }

  async touch(id: string, at: string, metadata?: Record<string, unknown>): Promise<boolean> {
    const session = await this.get(id);
    if (!session) return false;
    if (at > session.lastUsedAt) session.lastUsedAt = at;
    if (metadata) Object.assign(session.metadata, metadata);
    this.#folder.write(id, session);
    return true;
  }

  async get(id: string): Promise<SessionInfo | undefined> {
    return isSafeId(id) ? this.#folder.read<SessionInfo>(id) : undefined;
  }

  async list(query: SessionQuery = {}): Promise<SessionInfo[]> {
    return this.#folder
      .names()
      .flatMap((name) => this.#folder.read<SessionInfo>(name) ?? [])
      .filter((s) => (query.owner === undefined || s.owner === query.owner) && (query.space === undefined || s.space === query.space))
      .sort((a, b) => b.lastUsedAt.localeCompare(a.lastUsedAt));
  }

  async end(id: string): Promise<boolean> {
    if (!(await this.get(id))) return false;
    this.#folder.remove(id);
    return true;
  }
}
