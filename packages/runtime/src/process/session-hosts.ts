import { AgentSpacesError, type WireError } from '@agent-spaces/capabilities';
import type { ProcessOwner, SandboxProcess } from './sandbox-process.js';

/** A session as the process hosting it sees it. */
export interface HostedSession {
  readonly id: string;
  /** Who the session is for (`undefined`: nobody in particular, one owner like any other). */
  readonly owner: string | undefined;
  /** The process hosting the session is gone; `error` is what ended it. */
  ended(error: WireError): void;
}

/** How session processes are shared. */
export interface SessionHostsOptions {
  /** Sessions one process hosts at most. */
  sessionsPerProcess: number;
  /** Session processes at most, hosting sessions, starting, or empty and kept warm. */
  maxSessionProcesses: number;
  /** An empty session process is stopped after this long. */
  idleMs: number;
}

const RETIRED: WireError = { code: 'SPACE_CLOSED', message: 'The session process was retired' };

/**
 * The sandbox processes that host sessions, each up to {@link SessionHostsOptions.sessionsPerProcess} of them, every
 * session its own isolate and context in the child. A process hosts the sessions of **one owner** only, so a crash
 * (a V8 fatal error, an abort, the RSS ceiling, a frozen child) ends sessions of the owner whose code caused it and
 * no other's. A new session goes to its owner's least loaded process with room (one emptied by its last session
 * closing included), else to a new one, taken from the pool (its warm spare, if it never ran agent code).
 *
 * Processes are bounded ({@link SessionHostsOptions.maxSessionProcesses}) and shared fairly: an owner holds at most
 * its share, `ceil(maxSessionProcesses / 2)`. At the bound, an empty process of another owner is stopped to make
 * room; else the new session is refused with `TOO_MANY_SESSIONS` (`data.scope`: `"process-share"` or `"processes"`,
 * `data.limit`): sessions last, so nobody's is ever closed or moved to make room. An empty process is stopped after
 * {@link SessionHostsOptions.idleMs}, and at once when another empty one is already kept warm.
 */
export class SessionHosts {
  readonly #take: (owner: ProcessOwner) => void;
  readonly #options: SessionHostsOptions;
  /** Processes an owner may hold at most. */
  readonly #share: number;
  readonly #hosts = new Set<SessionHost>();
  readonly #retire = new Map<SessionHost, NodeJS.Timeout>();
  #closed = false;

  /** `take` gives a host a process of its own (and tells it when it is available or gone). */
  constructor(take: (owner: ProcessOwner) => void, options: SessionHostsOptions) {
    this.#take = take;
    this.#options = options;
    this.#share = Math.ceil(options.maxSessionProcesses / 2);
  }

  /**
   * Places `session` in a process of its owner (see {@link SessionHosts}) and returns the host it went to. Throws
   * `TOO_MANY_SESSIONS` when the owner's processes are full and it holds its share, or every process is taken.
   */
  place(session: HostedSession): SessionHost {
    const host = this.#roomOf(session.owner) ?? this.#claim(session.owner);
    clearTimeout(this.#retire.get(host));
    this.#retire.delete(host);
    host.add(session);
    return host;
  }

  /** Stops retiring processes; the caller kills them. */
  close(): void {
    this.#closed = true;
    for (const timer of this.#retire.values()) clearTimeout(timer);
    this.#retire.clear();
  }

  /** The least loaded process of `owner` with room for one more session, if any. */
  #roomOf(owner: string | undefined): SessionHost | undefined {
    let best: SessionHost | undefined;
    for (const host of this.#hosts) {
      if (host.owner !== owner || host.sessions.size >= this.#options.sessionsPerProcess) continue;
      if (!best || host.sessions.size < best.sessions.size) best = host;
    }
    return best;
  }

  /**
   * A new process for `owner`, within the bounds: an empty process of another owner is stopped to make room (it
   * hosts nothing, and is never handed over: what its owner left in it, memory or a wedged isolate, stays its own).
   */
  #claim(owner: string | undefined): SessionHost {
    let held = 0;
    let idle: SessionHost | undefined;
    for (const host of this.#hosts) {
      if (host.owner === owner) held++;
      else if (host.sessions.size === 0) idle ??= host;
    }
    const { maxSessionProcesses, sessionsPerProcess } = this.#options;
    if (held >= this.#share) {
      throw new AgentSpacesError(
        'TOO_MANY_SESSIONS',
        `This owner's ${held} session processes are full (${held * sessionsPerProcess} sessions), its share of the ${maxSessionProcesses}: close a session before creating another`,
        { scope: 'process-share', limit: this.#share },
      );
    }
    if (this.#hosts.size >= maxSessionProcesses) {
      if (!idle) {
        throw new AgentSpacesError(
          'TOO_MANY_SESSIONS',
          `All ${maxSessionProcesses} session processes host other owners' sessions (a process hosts one owner's only): try again when sessions close`,
          { scope: 'processes', limit: maxSessionProcesses },
        );
      }
      this.#stop(idle);
    }
    const host = new SessionHost(owner, { empty: (h) => this.#empty(h), gone: (h) => this.#gone(h) });
    this.#hosts.add(host);
    this.#take(host);
    return host;
  }

  /** `host` has no session left: stopped at once if another empty one is kept warm, else after `idleMs`. */
  #empty(host: SessionHost): void {
    if (this.#closed || !this.#hosts.has(host) || this.#retire.has(host)) return;
    if (this.#retire.size > 0) return this.#stop(host);
    this.#retire.set(host, setTimeout(() => this.#stop(host), this.#options.idleMs).unref());
  }

  #stop(host: SessionHost): void {
    this.#gone(host);
    host.retire();
  }

  #gone(host: SessionHost): void {
    this.#hosts.delete(host);
    clearTimeout(this.#retire.get(host));
    this.#retire.delete(host);
  }
}

/** One sandbox process hosting sessions of one owner: opens and closes them in the child, and ends them all if it dies. */
export class SessionHost implements ProcessOwner {
  /** Whose sessions the process hosts, for its whole life. */
  readonly owner: string | undefined;
  /** The sessions placed here, the process started or not. */
  readonly sessions = new Set<HostedSession>();
  readonly #events: { empty: (host: SessionHost) => void; gone: (host: SessionHost) => void };
  #process: SandboxProcess | undefined;
  /** Runs waiting for the process to start. */
  readonly #waiting = new Set<(process: SandboxProcess | undefined) => void>();
  #done = false;

  /** @internal Created by {@link SessionHosts} for `owner`; it hears when the host is empty or gone. */
  constructor(owner: string | undefined, events: { empty: (host: SessionHost) => void; gone: (host: SessionHost) => void }) {
    this.owner = owner;
    this.#events = events;
  }

  /** The process once it has started; `undefined` when it is gone first or `cancel` aborts. */
  process(cancel: AbortSignal): Promise<SandboxProcess | undefined> {
    if (this.#process || this.#done) return Promise.resolve(this.#process);
    return new Promise((resolve) => {
      const waiter = (process: SandboxProcess | undefined): void => {
        this.#waiting.delete(waiter);
        cancel.removeEventListener('abort', onCancel);
        resolve(process);
      };
      const onCancel = (): void => waiter(undefined);
      cancel.addEventListener('abort', onCancel, { once: true });
      this.#waiting.add(waiter);
    });
  }

  /** Hosts `session`: it is opened in the child now, or as soon as the process has started. */
  add(session: HostedSession): void {
    this.sessions.add(session);
    this.#process?.openSession(session.id);
  }

  /** Closes `session` in the child (its isolate is freed); its run going on ends with `error`. */
  remove(session: HostedSession, error: WireError): void {
    if (!this.sessions.delete(session)) return;
    this.#process?.closeSession(session.id, error);
    if (this.sessions.size === 0) this.#events.empty(this);
  }

  /** Stops the process (it hosts no session). */
  retire(): void {
    this.#done = true;
    this.#process?.kill(RETIRED);
  }

  /** @internal {@link ProcessOwner}: the process has started (later calls, after each run, change nothing). */
  available(process: SandboxProcess): void {
    if (this.#process) return;
    if (this.#done) return process.kill(RETIRED);
    this.#process = process;
    for (const session of this.sessions) process.openSession(session.id);
    for (const waiter of [...this.#waiting]) waiter(process);
    if (this.sessions.size === 0) this.#events.empty(this);
  }

  /** @internal {@link ProcessOwner}: the process is gone, and with it every session it hosted. */
  exited(_process: SandboxProcess | undefined, error: WireError): void {
    this.#done = true;
    this.#process = undefined;
    this.#events.gone(this);
    for (const waiter of [...this.#waiting]) waiter(undefined);
    for (const session of [...this.sessions]) session.ended(error);
    this.sessions.clear();
  }
}
