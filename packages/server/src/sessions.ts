import { AgentSpacesError, payloadBytes } from '@agent-spaces/capabilities';
import type { RunResult, Session } from '@agent-spaces/sdk';

/** One finished run of a session, as `get_session_history` returns it. */
interface HistoryEntry {
  seq: number;
  at: string;
  code: string;
  ok: boolean;
  result?: unknown;
  error?: { code: string; message: string };
  duration_ms: number;
  capability_calls: number;
}

/** A live session and what the server knows about it. */
export interface SessionRecord {
  readonly id: string;
  /** The MCP connection that created it; no other connection can see it. */
  readonly owner: string;
  readonly spaceId: string;
  readonly session: Session;
  readonly createdAt: Date;
  lastUsedAt: Date;
  runs: number;
  readonly history: HistoryEntry[];
}

/** Why a session id no longer answers. */
type EndReason = 'closed' | 'idle timeout' | 'evicted (max sessions reached)' | 'client disconnected';

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

/** Options of {@link SessionStore}. */
export interface SessionStoreOptions {
  idleTimeoutMs: number;
  maxSessions: number;
}

/**
 * Every session of a server, across MCP connections: idle timeout (a busy session never expires mid-run), a cap with
 * least-recently-used eviction, and ownership — lookups by another connection fail exactly like unknown ids.
 */
export class SessionStore {
  readonly #slots = new Map<string, Slot>();
  /** Recently ended ids (per owner) and why, so a late call learns what happened. Bounded. */
  readonly #ended = new Map<string, EndReason>();
  readonly #options: SessionStoreOptions;

  constructor(options: SessionStoreOptions) {
    this.#options = options;
  }

  /** How many sessions are open. */
  get size(): number {
    return this.#slots.size;
  }

  /** Registers a new session of `owner`, evicting the least recently used session first when the store is full. */
  async add(owner: string, spaceId: string, session: Session): Promise<SessionRecord> {
    while (this.#slots.size >= this.#options.maxSessions) {
      const lru = [...this.#slots.values()].sort((a, b) => Number(a.busy > 0) - Number(b.busy > 0) || +a.record.lastUsedAt - +b.record.lastUsedAt)[0]!;
      await this.#end(lru, 'evicted (max sessions reached)');
    }
    const now = new Date();
    const record: SessionRecord = { id: session.id, owner, spaceId, session, createdAt: now, lastUsedAt: now, runs: 0, history: [] };
    const slot: Slot = { record, timer: undefined, busy: 0, queue: Promise.resolve() };
    this.#slots.set(session.id, slot);
    this.#arm(slot);
    return record;
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
  async run(owner: string, id: string, code: string, run: (session: Session) => PromiseLike<RunResult>): Promise<RunResult> {
    const slot = this.#slot(owner, id);
    slot.busy++;
    this.#touch(slot);
    const result = slot.queue.then(() => run(slot.record.session));
    slot.queue = result.catch(() => undefined);
    try {
      const outcome = await result;
      this.#record(slot.record, code, outcome);
      return outcome;
    } finally {
      slot.busy--;
      this.#touch(slot);
    }
  }

  /** Closes the session `id` of `owner`. */
  async close(owner: string, id: string): Promise<void> {
    await this.#end(this.#slot(owner, id), 'closed');
  }

  /** Closes every session of `owner` (its connection went away). */
  async closeOwner(owner: string): Promise<void> {
    await Promise.all([...this.#slots.values()].filter((s) => s.record.owner === owner).map((s) => this.#end(s, 'client disconnected')));
  }

  /** Closes every session. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.#slots.values()].map((s) => this.#end(s, 'closed')));
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

  async #end(slot: Slot, reason: EndReason): Promise<void> {
    const { record } = slot;
    if (this.#slots.get(record.id) !== slot) return;
    clearTimeout(slot.timer);
    this.#slots.delete(record.id);
    this.#ended.set(`${record.owner}\n${record.id}`, reason);
    if (this.#ended.size > MAX_ENDED) this.#ended.delete(this.#ended.keys().next().value!);
    await record.session.close().catch(() => undefined);
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

/** A run's result as a session's history keeps it: whole up to {@link MAX_RESULT_IN_HISTORY_BYTES}, else a marker. */
function boundedResult(result: unknown): unknown {
  const bytes = payloadBytes(result, MAX_RESULT_IN_HISTORY_BYTES);
  return bytes > MAX_RESULT_IN_HISTORY_BYTES ? { truncated: true, bytes: payloadBytes(result, Infinity) } : result;
}
