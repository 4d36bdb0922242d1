import { AgentSpacesError, type WireError } from '@agent-spaces/capabilities';
import type { ChildHolder, SupervisedChild } from './supervised-child.js';

/** A session as the session process hosting it sees it. */
export interface PlacedSession {
  readonly id: string;
  /** Who the session is for (`undefined`: nobody in particular, one owner like any other). */
  readonly owner: string | undefined;
  /** The process hosting the session is gone; `error` is what ended it. */
  ended(error: WireError): void;
}

/** How session processes are shared. */
export interface SessionChildrenOptions {
  /** Sessions one process hosts at most. */
  sessionsPerProcess: number;
  /** Session processes at most, hosting sessions, starting, or empty and kept warm. */
  maxSessionProcesses: number;
  /** An empty session process is stopped after this long. */
  idleMs: number;
}

const RETIRED: WireError = { code: 'SPACE_CLOSED', message: 'The session process was retired' };

/**
 * The sandbox processes that host sessions, each up to {@link SessionChildrenOptions.sessionsPerProcess} of them,
 * every session its own isolate and context in the child. A process hosts the sessions of **one owner** only, so a crash
 * (a V8 fatal error, an abort, the RSS ceiling, a frozen child) ends sessions of the owner whose code caused it and
 * no other's. A new session goes to its owner's least loaded process with room (one emptied by its last session
 * closing included), else to a new one, taken from the pool (its warm spare, if it never ran agent code).
 *
 * Processes are bounded ({@link SessionChildrenOptions.maxSessionProcesses}) and shared fairly: an owner holds at most
 * its share, `ceil(maxSessionProcesses / 2)`. At the bound, an empty process of another owner is stopped to make
 * room; else the new session is refused with `TOO_MANY_SESSIONS` (`data.scope`: `"process-share"` or `"processes"`,
 * `data.limit`): sessions last, so nobody's is ever closed or moved to make room. An empty process is stopped after
 * {@link SessionChildrenOptions.idleMs}, and at once when another empty one is already kept warm.
 */
export class SessionChildren {
  readonly #take: (owner: ChildHolder) => void;
  readonly #options: SessionChildrenOptions;
  /** Processes an owner may hold at most. */
  readonly #share: number;
  readonly #children = new Set<SessionChild>();
  readonly #retire = new Map<SessionChild, NodeJS.Timeout>();
  #closed = false;

  /** `take` gives a session process a child of its own (and tells it when the child is available or gone). */
  constructor(take: (owner: ChildHolder) => void, options: SessionChildrenOptions) {
    this.#take = take;
    this.#options = options;
    this.#share = Math.ceil(options.maxSessionProcesses / 2);
  }

  /**
   * Places `session` in a process of its owner (see {@link SessionChildren}) and returns the process it went to.
   * Throws `TOO_MANY_SESSIONS` when the owner's processes are full and it holds its share, or every process is taken.
   */
  place(session: PlacedSession): SessionChild {
    const sessionChild = this.#roomOf(session.owner) ?? this.#claim(session.owner);
    clearTimeout(this.#retire.get(sessionChild));
    this.#retire.delete(sessionChild);
    sessionChild.add(session);
    return sessionChild;
  }

  /** Stops retiring processes; the caller kills them. */
  close(): void {
    this.#closed = true;
    for (const timer of this.#retire.values()) clearTimeout(timer);
    this.#retire.clear();
  }

  /** The least loaded process of `owner` with room for one more session, if any. */
  #roomOf(owner: string | undefined): SessionChild | undefined {
    let best: SessionChild | undefined;
    for (const sessionChild of this.#children) {
      if (sessionChild.owner !== owner || sessionChild.sessions.size >= this.#options.sessionsPerProcess) continue;
      if (!best || sessionChild.sessions.size < best.sessions.size) best = sessionChild;
    }
    return best;
  }

  /**
   * A new session process for `owner`, within the bounds: an empty process of another owner is stopped to make room
   * (it hosts nothing, and is never handed over: what its owner left in it, memory or a wedged isolate, stays its own).
   */
  #claim(owner: string | undefined): SessionChild {
    let held = 0;
    let idle: SessionChild | undefined;
    for (const sessionChild of this.#children) {
      if (sessionChild.owner === owner) held++;
      else if (sessionChild.sessions.size === 0) idle ??= sessionChild;
    }
    const { maxSessionProcesses, sessionsPerProcess } = this.#options;
    if (held >= this.#share) {
      throw new AgentSpacesError(
        'TOO_MANY_SESSIONS',
        `This owner's ${held} session processes are full (${held * sessionsPerProcess} sessions), its share of the ${maxSessionProcesses}: close a session before creating another`,
        { scope: 'process-share', limit: this.#share },
      );
    }
    if (this.#children.size >= maxSessionProcesses) {
      if (!idle) {
        throw new AgentSpacesError(
          'TOO_MANY_SESSIONS',
          `All ${maxSessionProcesses} session processes host other owners' sessions (a process hosts one owner's only): try again when sessions close`,
          { scope: 'processes', limit: maxSessionProcesses },
        );
      }
      this.#stop(idle);
    }
    const sessionChild = new SessionChild(owner, { empty: (p) => this.#empty(p), gone: (p) => this.#gone(p) });
    this.#children.add(sessionChild);
    this.#take(sessionChild);
    return sessionChild;
  }

  /** `sessionChild` has no session left: stopped at once if another empty one is kept warm, else after `idleMs`. */
  #empty(sessionChild: SessionChild): void {
    if (this.#closed || !this.#children.has(sessionChild) || this.#retire.has(sessionChild)) return;
    if (this.#retire.size > 0) return this.#stop(sessionChild);
    this.#retire.set(sessionChild, setTimeout(() => this.#stop(sessionChild), this.#options.idleMs).unref());
  }

  #stop(sessionChild: SessionChild): void {
    this.#gone(sessionChild);
    sessionChild.retire();
  }

  #gone(sessionChild: SessionChild): void {
    this.#children.delete(sessionChild);
    clearTimeout(this.#retire.get(sessionChild));
    this.#retire.delete(sessionChild);
  }
}

/** One sandbox process hosting sessions of one owner, the parent's side: opens and closes them in its child, and ends them all if it dies. */
export class SessionChild implements ChildHolder {
  /** Whose sessions it hosts, for its whole life. */
  readonly owner: string | undefined;
  /** The sessions placed here, the child started or not. */
  readonly sessions = new Set<PlacedSession>();
  readonly #events: { empty: (sessionChild: SessionChild) => void; gone: (sessionChild: SessionChild) => void };
  #child: SupervisedChild | undefined;
  /** Runs waiting for the child to start. */
  readonly #waiting = new Set<(child: SupervisedChild | undefined) => void>();
  #done = false;

  /** @internal Created by {@link SessionChildren} for `owner`; it hears when this is empty or gone. */
  constructor(owner: string | undefined, events: { empty: (sessionChild: SessionChild) => void; gone: (sessionChild: SessionChild) => void }) {
    this.owner = owner;
    this.#events = events;
  }

  /** The child once it has started; `undefined` when it is gone first or `cancel` aborts. */
  child(cancel: AbortSignal): Promise<SupervisedChild | undefined> {
    if (this.#child || this.#done) return Promise.resolve(this.#child);
    return new Promise((resolve) => {
      const waiter = (child: SupervisedChild | undefined): void => {
        this.#waiting.delete(waiter);
        cancel.removeEventListener('abort', onCancel);
        resolve(child);
      };
      const onCancel = (): void => waiter(undefined);
      cancel.addEventListener('abort', onCancel, { once: true });
      this.#waiting.add(waiter);
    });
  }

  /** Hosts `session`: it is opened in the child now, or as soon as the child has started. */
  add(session: PlacedSession): void {
    this.sessions.add(session);
    this.#child?.openSession(session.id);
  }

  /** Closes `session` in the child (its isolate is freed); its run going on ends with `error`. */
  remove(session: PlacedSession, error: WireError): void {
    if (!this.sessions.delete(session)) return;
    this.#child?.closeSession(session.id, error);
    if (this.sessions.size === 0) this.#events.empty(this);
  }

  /** Stops the child (it hosts no session). */
  retire(): void {
    this.#done = true;
    this.#child?.kill(RETIRED);
  }

  /** @internal {@link ChildHolder}: the child has started (later calls, after each run, change nothing). */
  available(child: SupervisedChild): void {
    if (this.#child) return;
    if (this.#done) return child.kill(RETIRED);
    this.#child = child;
    for (const session of this.sessions) child.openSession(session.id);
    for (const waiter of [...this.#waiting]) waiter(child);
    if (this.sessions.size === 0) this.#events.empty(this);
  }

  /** @internal {@link ChildHolder}: the child is gone, and with it every session it hosted. */
  exited(_child: SupervisedChild | undefined, error: WireError): void {
    this.#done = true;
    this.#child = undefined;
    this.#events.gone(this);
    for (const waiter of [...this.#waiting]) waiter(undefined);
    for (const session of [...this.sessions]) session.ended(error);
    this.sessions.clear();
  }
}
