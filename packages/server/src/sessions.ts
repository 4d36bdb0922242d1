import { AgentSpacesError, payloadBytes } from '@agent-spaces/capabilities';
import { MemorySessionStore, type AgentMessage, type RunOptions, type RunResult, type SessionStore } from '@agent-spaces/sdk';
import type { SpaceDefinition } from './config.js';
import { silentLog, type ServerLog } from './log.js';

/** One finished run of a session, as `get_session_history` returns it. */
interface RunEntry {
  seq: number;
  at: string;
  code: string;
  ok: boolean;
  result?: unknown;
  error?: { code: string; message: string };
  duration_ms: number;
  capability_calls: number;
}

/** One message of an agent conversation (`send_message`), as `get_session_history` returns it between the runs. */
interface MessageEntry {
  at: string;
  role: 'user' | 'assistant';
  text: string;
}

type HistoryEntry = RunEntry | MessageEntry;

/** What the store needs of a session: an SDK session, or a client's view of one. */
export interface StoredSession {
  readonly id: string;
  run(code: string, options: RunOptions): PromiseLike<RunResult>;
  /** Ends it; with `keepRuns`, in this process only (its kept runs stay, so a later process can restore it). */
  close(options?: { keepRuns?: boolean }): Promise<void>;
}

/** A live session and what the server knows about it. */
export interface SessionRecord {
  readonly id: string;
  /** The MCP connection that created it; no other connection can see it. */
  readonly owner: string;
  /** Its space; `transfer_session` changes it, and {@link session} with it. */
  spaceId: string;
  session: StoredSession;
  readonly createdAt: Date;
  lastUsedAt: Date;
  runs: number;
  readonly history: HistoryEntry[];
  /** The conversation of a session `send_message` or `create_session` with `agent_file` started (none for a code session). */
  conversation?: AgentMessage[];
  /** Messages of its conversation so far (user and assistant). */
  messageCount?: number;
  /** Seed 004's `session_name`, when `create_session` was given one. */
  name?: string;
  /** The agent file it was started with (relative to the project). */
  agentFile?: string;
  /** Its space's definition when that is not a served space (an agent file outside the agents folder). */
  definition?: SpaceDefinition;
}

/** Why a session id no longer answers. */
type EndReason = 'closed' | 'idle timeout' | 'evicted (server session limit; idle for a while)' | 'client disconnected';

interface Slot {
  record: SessionRecord;
  timer: NodeJS.Timeout | undefined;
  busy: number;
  /** Runs of one session are serialized: its context is shared. */
  queue: Promise<unknown>;
}

const MAX_HISTORY = 100;
const MAX_CODE_IN_HISTORY = 4_000;
/** A result bigger than this (as it travels) is kept in a session's history as `{ truncated: true, bytes }`. */
const MAX_RESULT_IN_HISTORY_BYTES = 64 * 1024;
const MAX_ENDED = 1_000;
/** Default of {@link ServerSessionsOptions.evictionGraceMs}. */
const EVICTION_GRACE_MS = 5 * 60_000;

/** Options of {@link ServerSessions}. */
export interface ServerSessionsOptions {
  idleTimeoutMs: number;
  /** Most sessions of all clients together. */
  maxSessions: number;
  /** Most sessions of one client. */
  maxSessionsPerClient: number;
  /** A session used (or created) this recently is never closed to make room for another (default 5 minutes). */
  evictionGraceMs?: number;
  /** Where `session.created` / `session.ended` are logged (default nowhere). */
  log?: ServerLog;
  /**
   * Where each session is put on record (owner, space, created, last used, and its runs, history and conversation as
   * metadata) as it is created, used and ended. Default: in memory.
   */
  records?: SessionStore;
  /**
   * With replicas sharing `records` (docs/deployment.md): this replica, once it joined. Each record then says which
   * replica holds the session, and a session another live replica holds is never restored here.
   */
  replica?: () => SessionHolders | undefined;
}

/** The replicas of a service, as sessions need them: this one's id, and whether another is alive. */
interface SessionHolders {
  readonly id: string;
  alive(replica: string): Promise<boolean>;
}

/**
 * Every session of a server, across MCP connections: idle timeout (a busy session never expires mid-run), caps, and
 * ownership — lookups by another connection fail exactly like unknown ids.
 *
 * Caps are fair: past its own cap a client gets `TOO_MANY_SESSIONS` (`scope: "client"`); when the server is full, the
 * least recently used session that is idle and unused for `evictionGraceMs` makes room, and when there is
 * none the request gets `TOO_MANY_SESSIONS` (`scope: "server"`) — no one's active or recent session is ever closed
 * for another.
 */
export class ServerSessions {
  readonly #slots = new Map<string, Slot>();
  /** Recently ended ids (per owner) and why, so a late call learns what happened. Bounded. */
  readonly #ended = new Map<string, EndReason>();
  /** Sessions being created, by owner: they count against the caps already. */
  readonly #pending = new Map<string, number>();
  readonly #options: ServerSessionsOptions;
  readonly #log: ServerLog;
  readonly #records: SessionStore;
  /** Sessions being restored, by id. */
  readonly #restoring = new Map<string, Promise<void>>();

  constructor(options: ServerSessionsOptions) {
    this.#options = options;
    this.#log = options.log ?? silentLog;
    this.#records = options.records ?? new MemorySessionStore();
  }

  /** How many sessions are open. */
  get size(): number {
    return this.#slots.size;
  }

  /**
   * Creates (with `create`) and registers a new session of `owner` when the caps allow it (see the class comment);
   * throws `TOO_MANY_SESSIONS` naming the cap otherwise, before anything is created.
   */
  async add(owner: string, spaceId: string, create: () => Promise<StoredSession>, principal?: string): Promise<SessionRecord> {
    const { maxSessions, maxSessionsPerClient } = this.#options;
    const pending = this.#pending.get(owner) ?? 0;
    if (this.list(owner).length + pending >= maxSessionsPerClient) {
      throw new AgentSpacesError(
        'TOO_MANY_SESSIONS',
        `This client has ${maxSessionsPerClient} sessions, its limit: close one (close_session) before creating another`,
        { scope: 'client', limit: maxSessionsPerClient },
      );
    }
    const total = () => this.#slots.size + [...this.#pending.values()].reduce((sum, n) => sum + n, 0);
    if (total() >= maxSessions) {
      const now = Date.now();
      const grace = this.#options.evictionGraceMs ?? EVICTION_GRACE_MS;
      const evictable = [...this.#slots.values()]
        .filter((s) => s.busy === 0 && now - +s.record.lastUsedAt >= grace)
        .sort((a, b) => +a.record.lastUsedAt - +b.record.lastUsedAt)[0];
      if (!evictable) {
        throw new AgentSpacesError(
          'TOO_MANY_SESSIONS',
          `The server has ${maxSessions} sessions, its limit, and none has been idle for ${Math.round(grace / 1000)} s: close one or try later`,
          { scope: 'server', limit: maxSessions },
        );
      }
      void this.#end(evictable, 'evicted (server session limit; idle for a while)');
    }
    this.#pending.set(owner, pending + 1);
    let session: StoredSession;
    let now: Date;
    try {
      session = await create();
      now = new Date();
      await this.#putOnRecord(session, owner, spaceId, now, principal);
    } finally {
      const left = (this.#pending.get(owner) ?? 1) - 1;
      if (left === 0) this.#pending.delete(owner);
      else this.#pending.set(owner, left);
    }
    const record: SessionRecord = { id: session.id, owner, spaceId, session, createdAt: now, lastUsedAt: now, runs: 0, history: [] };
    this.#hold(record);
    this.#log.event('session.created', { session: record.id, client: owner, space: spaceId });
    return record;
  }

  /**
   * Makes sure `owner` holds session `id`: when this process does not hold it but its record does — a session a
   * stopped process held — and the record's principal is `principal`, `restore(spaceId)` restores it (replaying its
   * kept runs) and `owner` holds it from now on. Otherwise nothing happens (the lookup that follows says
   * `SESSION_NOT_FOUND`). Concurrent calls restore once.
   */
  async ensure(owner: string, principal: string, id: string, restore: (spaceId: string) => Promise<StoredSession>): Promise<void> {
    if (this.#slots.has(id) || typeof id !== 'string') return;
    let restoring = this.#restoring.get(id);
    if (!restoring) {
      restoring = this.#restore(owner, principal, id, restore).finally(() => this.#restoring.delete(id));
      this.#restoring.set(id, restoring);
    }
    await restoring;
  }

  /**
   * The replica that holds session `id` when it is not held here and its record names another replica that is alive
   * (a request for it goes there); undefined otherwise.
   */
  async heldElsewhere(id: string): Promise<string | undefined> {
    const replicas = this.#options.replica?.();
    if (!replicas || this.#slots.has(id)) return undefined;
    const holder = (await this.#records.get(id))?.metadata.replica;
    return typeof holder === 'string' && holder !== replicas.id && (await replicas.alive(holder)) ? holder : undefined;
  }

  async #restore(owner: string, principal: string, id: string, restore: (spaceId: string) => Promise<StoredSession>): Promise<void> {
    const info = await this.#records.get(id);
    if (!info || info.metadata.principal !== principal) return;
    if (await this.heldElsewhere(id)) return;
    const session = await restore(info.space);
    const history = Array.isArray(info.metadata.history) ? (info.metadata.history as HistoryEntry[]) : [];
    const runs = typeof info.metadata.runs === 'number' ? info.metadata.runs : history.length;
    const record: SessionRecord = { id, owner, spaceId: info.space, session, createdAt: new Date(info.createdAt), lastUsedAt: new Date(), runs, history };
    this.#hold(record);
    await this.#save(record);
    this.#log.event('session.restored', { session: id, client: owner, space: info.space, runs });
  }

  #hold(record: SessionRecord): void {
    const slot: Slot = { record, timer: undefined, busy: 0, queue: Promise.resolve() };
    this.#slots.set(record.id, slot);
    this.#arm(slot);
  }

  /** The session `id` of `owner`; throws `SESSION_NOT_FOUND` (saying why when it ended recently) otherwise. */
  get(owner: string, id: string): SessionRecord {
    return this.#slot(owner, id).record;
  }

  /** Sessions of `owner`, most recently used first. */
  list(owner: string): SessionRecord[] {
    return [...this.#slots.values()]
      .map((s) => s.record)
      .filter((r) => r.owner === owner)
      .sort((a, b) => +b.lastUsedAt - +a.lastUsedAt);
  }

  /** When the session expires if left idle. */
  expiresAt(record: SessionRecord): Date {
    return new Date(+record.lastUsedAt + this.#options.idleTimeoutMs);
  }

  /** Runs `code` in the session after any run already queued on it; records the outcome in its history. */
  async run(owner: string, id: string, code: string, run: (session: StoredSession) => PromiseLike<RunResult>): Promise<RunResult> {
    const slot = this.#slot(owner, id);
    slot.busy++;
    this.#touch(slot);
    const result = slot.queue.then(() => run(slot.record.session));
    slot.queue = result.catch(() => undefined);
    try {
      const outcome = await result;
      this.#record(slot.record, code, outcome);
      await this.#save(slot.record);
      return outcome;
    } finally {
      slot.busy--;
      this.#touch(slot);
    }
  }

  /** Appends a message of the session's agent conversation to its history, after the runs so far. */
  addMessage(record: SessionRecord, role: MessageEntry['role'], text: string): void {
    record.messageCount = (record.messageCount ?? 0) + 1;
    record.history.push({ at: new Date().toISOString(), role, text: text.length > MAX_CODE_IN_HISTORY ? `${text.slice(0, MAX_CODE_IN_HISTORY)}…` : text });
    if (record.history.length > MAX_HISTORY) record.history.shift();
    void this.#save(record).catch(() => undefined);
  }

  /**
   * Hands the session `id` of `owner` to space `spaceId` (`transfer_session`): once its queued runs are done, its
   * sandbox session is replaced by `create()`'s (the old one is closed: its top-level declarations do not carry over);
   * its id, history and conversation stay. `definition` is the space's when it is not a served one.
   */
  async transfer(owner: string, id: string, spaceId: string, create: () => Promise<StoredSession>, definition?: SpaceDefinition): Promise<SessionRecord> {
    const slot = this.#slot(owner, id);
    const session = await create();
    slot.busy++;
    try {
      await slot.queue;
      const { record } = slot;
      const old = record.session;
      const from = record.spaceId;
      record.session = session;
      record.spaceId = spaceId;
      if (definition) record.definition = definition;
      else delete record.definition;
      await old.close().catch(() => undefined);
      await this.#save(record);
      this.#log.event('session.transferred', { session: id, client: owner, from, space: spaceId });
      return record;
    } finally {
      slot.busy--;
      this.#touch(slot);
    }
  }

  /** Closes the session `id` of `owner`. */
  async close(owner: string, id: string): Promise<void> {
    await this.#end(this.#slot(owner, id), 'closed');
  }

  /** Closes every session of `owner` (its connection went away or was closed). */
  async closeOwner(owner: string, reason: 'client disconnected' | 'closed'): Promise<void> {
    await Promise.all([...this.#slots.values()].filter((s) => s.record.owner === owner).map((s) => this.#end(s, reason)));
  }

  /** Ends every session as the server stops: their records and kept runs stay, so a restarted server can restore them. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.#slots.values()].map((s) => this.#end(s, 'closed', true)));
  }

  #slot(owner: string, id: string): Slot {
    const slot = this.#slots.get(id);
    if (slot && slot.record.owner === owner) return slot;
    const reason = this.#ended.get(`${owner}\n${id}`);
    throw new AgentSpacesError(
      'SESSION_NOT_FOUND',
      reason ? `Session ${id} has ended: ${reason}` : `No session ${id} for this client (create one with create_session)`,
      { sessionId: id, ...(reason ? { reason } : {}) },
    );
  }

  #touch(slot: Slot): void {
    slot.record.lastUsedAt = new Date();
    this.#arm(slot);
  }

  #arm(slot: Slot): void {
    clearTimeout(slot.timer);
    slot.timer = setTimeout(() => {
      if (slot.busy > 0) this.#arm(slot);
      else void this.#end(slot, 'idle timeout');
    }, this.#options.idleTimeoutMs);
    slot.timer.unref();
  }

  async #end(slot: Slot, reason: EndReason, keep = false): Promise<void> {
    const { record } = slot;
    if (this.#slots.get(record.id) !== slot) return;
    clearTimeout(slot.timer);
    this.#slots.delete(record.id);
    this.#ended.set(`${record.owner}\n${record.id}`, reason);
    if (this.#ended.size > MAX_ENDED) this.#ended.delete(this.#ended.keys().next().value!);
    this.#log.event('session.ended', { session: record.id, client: record.owner, space: record.spaceId, reason });
    if (keep) await record.session.close({ keepRuns: true }).catch(() => undefined);
    else await Promise.all([record.session.close().catch(() => undefined), this.#records.end(record.id).catch(() => false)]);
  }

  /** Puts a new session on record; when it cannot be, closes it and throws `INTERNAL`. */
  async #putOnRecord(session: StoredSession, owner: string, space: string, createdAt: Date, principal: string | undefined): Promise<void> {
    const { id } = session;
    const metadata = { runs: 0, history: [], ...(principal === undefined ? {} : { principal }), ...this.#holder() };
    const recorded = await this.#records.create({ id, owner, space, createdAt: createdAt.toISOString(), metadata }).catch(() => false);
    if (recorded) return;
    await session.close().catch(() => undefined);
    throw new AgentSpacesError('INTERNAL', `Session ${id} could not be put on record`, { sessionId: id });
  }

  /** Writes the session's use (now) and metadata to its record (and that this replica holds it). */
  async #save(record: SessionRecord): Promise<void> {
    await this.#records.touch(record.id, new Date().toISOString(), { ...metadataOf(record), ...this.#holder() });
  }

  /** The record's mark of the replica that holds a session: this one, when it is a replica. */
  #holder(): { replica?: string } {
    const replica = this.#options.replica?.()?.id;
    return replica === undefined ? {} : { replica };
  }

  #record(record: SessionRecord, code: string, outcome: RunResult): void {
    record.runs++;
    record.history.push({
      seq: record.runs,
      at: new Date().toISOString(),
      code: code.length > MAX_CODE_IN_HISTORY ? `${code.slice(0, MAX_CODE_IN_HISTORY)}…` : code,
      ok: outcome.ok,
      ...(outcome.ok ? { result: boundedResult(outcome.result ?? null) } : { error: { code: outcome.error.code, message: outcome.error.message } }),
      duration_ms: Math.round(outcome.stats.durationMs * 10) / 10,
      capability_calls: outcome.stats.capabilityCalls,
    });
    if (record.history.length > MAX_HISTORY) record.history.shift();
  }
}

/** What the record of a session keeps besides its ids and times: its runs, their history, its conversation. */
function metadataOf(record: SessionRecord): Record<string, unknown> {
  return { runs: record.runs, history: record.history, ...(record.conversation ? { conversation: record.conversation } : {}) };
}

/** A run's result as a session's history keeps it: whole up to {@link MAX_RESULT_IN_HISTORY_BYTES}, else a marker. */
function boundedResult(result: unknown): unknown {
  const bytes = payloadBytes(result, MAX_RESULT_IN_HISTORY_BYTES);
  return bytes > MAX_RESULT_IN_HISTORY_BYTES ? { truncated: true, bytes: payloadBytes(result, Infinity) } : result;
}
