import type { WireError } from '@agent-spaces/capabilities';
import type { ProcessOwner, SandboxProcess } from './sandbox-process.js';

/** A session as the process hosting it sees it. */
export interface HostedSession {
  readonly id: string;
  /** Who the session is for (`undefined`: nobody in particular). */
  readonly owner: string | undefined;
  /** The process hosting the session is gone; `error` is what ended it. */
  ended(error: WireError): void;
}

/** How session processes are shared. */
export interface SessionHostsOptions {
  /** Sessions one process hosts at most. */
  sessionsPerProcess: number;
  /** An empty session process is stopped after this long. */
  idleMs: number;
}

const RETIRED: WireError = { code: 'SPACE_CLOSED', message: 'The session process was retired' };

/**
 * The sandbox processes that host sessions, each up to {@link SessionHostsOptions.sessionsPerProcess} of them, every
 * session its own isolate and context in the child. A new session goes to a process already hosting sessions of the
 * same owner when one has room (a crash then costs that owner's sessions first), else to the least loaded process
 * with room, else to a new one, taken from the pool (its warm spare when there is one). An empty process is stopped
 * after {@link SessionHostsOptions.idleMs}, and at once when another empty one is already kept warm.
 */
export class SessionHosts {
  readonly #take: (owner: ProcessOwner) => void;
  readonly #options: SessionHostsOptions;
  readonly #hosts = new Set<SessionHost>();
  readonly #retire = new Map<SessionHost, NodeJS.Timeout>();
  #closed = false;

  /** `take` gives a host a process of its own (and tells it when it is available or gone). */
  constructor(take: (owner: ProcessOwner) => void, options: SessionHostsOptions) {
    this.#take = take;
    this.#options = options;
  }

  /** Places `session` in a process (see {@link SessionHosts}) and returns the host it went to. */
  place(session: HostedSession): SessionHost {
    let best: SessionHost | undefined;
    let bestMine = false;
    for (const host of this.#hosts) {
      if (host.sessions.size >= this.#options.sessionsPerProcess) continue;
      const mine = host.hosts(session.owner);
      if (!best || (mine && !bestMine) || (mine === bestMine && host.sessions.size < best.sessions.size)) {
        best = host;
        bestMine = mine;
      }
    }
    const host = best ?? this.#add();
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

  #add(): SessionHost {
    const host = new SessionHost({ empty: (h) => this.#empty(h), gone: (h) => this.#gone(h) });
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

/** One sandbox process hosting sessions: opens and closes them in the child, and ends them all if it dies. */
export class SessionHost implements ProcessOwner {
  /** The sessions placed here, the process started or not. */
  readonly sessions = new Set<HostedSession>();
  readonly #events: { empty: (host: SessionHost) => void; gone: (host: SessionHost) => void };
  #process: SandboxProcess | undefined;
  /** Runs waiting for the process to start. */
  readonly #waiting = new Set<(process: SandboxProcess | undefined) => void>();
  #done = false;

  /** @internal Created by {@link SessionHosts}, which hears when the host is empty or gone. */
  constructor(events: { empty: (host: SessionHost) => void; gone: (host: SessionHost) => void }) {
    this.#events = events;
  }

  /** True when a session of `owner` is placed here. */
  hosts(owner: string | undefined): boolean {
    for (const session of this.sessions) if (session.owner === owner) return true;
    return false;
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
