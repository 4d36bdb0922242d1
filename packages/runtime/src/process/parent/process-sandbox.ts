import { randomUUID } from 'node:crypto';
import { AgentSpacesError, type WireError } from '@agent-spaces/capabilities';
import { resolveLimits, type RunLimits } from '../../limits.js';
import { aborted, failed, timeout, type RunOutcome } from '../../outcome.js';
import { checkModules, type AgentSandbox, type RunOptions, type SandboxOptions, type SandboxSessionHandle, type SandboxStats, type SessionOptions } from '../../sandbox.js';
import { prepareRun, type PreparedRun } from '../../script/prepare.js';
import { childEntry } from './child-entry.js';
import { ChildPool } from './child-pool.js';
import { SessionChildren, type PlacedSession, type SessionChild } from './session-children.js';
import { SupervisedChild, type ChildHolder } from './supervised-child.js';
import { hostProcesses } from './warm-processes.js';

/** How a {@link ProcessSandbox} manages its processes. */
export interface ProcessOptions {
  /**
   * Sandbox processes for plain runs at most (default 4); more concurrent runs wait for one, and one owner holds
   * more than half of them only while nobody else waits. Sessions have their own.
   */
  maxProcesses?: number;
  /** A process whose RSS passes this many MiB after a run is replaced (default 512). */
  maxRssMb?: number;
  /** An idle process beyond the warm spare, or an empty session process, is stopped after this many ms (default 10 000). */
  idleMs?: number;
  /** Sessions one sandbox process hosts at most (default 32), each in its own isolate; all of one owner. */
  sessionsPerProcess?: number;
  /**
   * Sandbox processes hosting sessions at most (default 128), apart from `maxProcesses`; an owner holds at most half
   * of them (rounded up). A session that would need one more fails with `TOO_MANY_SESSIONS`.
   */
  maxSessionProcesses?: number;
}

const DEFAULTS: Required<ProcessOptions> = { maxProcesses: 4, maxRssMb: 512, idleMs: 10_000, sessionsPerProcess: 32, maxSessionProcesses: 128 };
/** Starts the key sessions of a process group are packed by: a NUL no owner id of the host's has. */
const GROUP_KEY = '\u0000group:';
/** What a new process runs once to warm up. */
const WARM_UP = 'export default 0;';
const CLOSED: WireError = { code: 'SPACE_CLOSED', message: 'The sandbox was closed during the run' };
/** How long `close()` waits for killed processes to be gone. */
const EXIT_WAIT_MS = 2_000;

/**
 * A sandbox whose runs execute in supervised sandbox processes (`isolation: 'process'`). A plain run takes a pooled
 * process to itself, shared fairly between the runs' owners; sessions are packed many to a process, each in its own
 * isolate, and a process hosts sessions of one owner only. An abort, a V8 fatal error or a hang in agent code costs
 * only the runs and sessions of that process, so of that owner, which end with `SANDBOX_CRASHED` (or `TIMEOUT`, or
 * `SESSION_CLOSED` with the reason), and a fresh process takes its place.
 * Calls still reach the host's {@link HostPort} here, in this process: secrets and handlers never enter a child.
 * @example
 * const sandbox = new ProcessSandbox({ modules, maxProcesses: 4 });
 * const outcome = await sandbox.run(code, { port, owner: clientId }); // never rejects
 * await sandbox.close(); // kills every process
 */
export class ProcessSandbox implements AgentSandbox {
  #modules: ReadonlyMap<string, string>;
  readonly #limits: RunLimits;
  readonly #pool: ChildPool;
  readonly #sessionChildren: SessionChildren;
  readonly #sessions = new Set<ProcessSession>();
  /** Every child not yet exited, the session processes' included. */
  readonly #children = new Set<SupervisedChild>();
  #closed = false;

  /** Throws `CONFIG_INVALID` for bad limits, modules or process options. The warm spare starts right away. */
  constructor(options: SandboxOptions & ProcessOptions) {
    this.#modules = checkModules(options.modules);
    this.#limits = resolveLimits(options.limits);
    const resolved = resolveOptions(options);
    // Prepared once: every child warms up with the same run.
    const warmUp = prepareRun(WARM_UP, this.#limits, undefined, this.#modules).then((prepared) => {
      if ('error' in prepared) throw new AgentSpacesError(prepared.error.code, prepared.error.message);
      return prepared.run;
    });
    warmUp.catch(() => {});
    const spawn = async (holder: ChildHolder): Promise<SupervisedChild> => {
      const child = await this.#spawn(holder, warmUp, resolved.maxRssMb);
      this.#children.add(child);
      void child.exit.then(() => this.#children.delete(child));
      return child;
    };
    const give = (child: SupervisedChild): void => {
      this.#children.delete(child);
      hostProcesses().give(child);
    };
    this.#pool = new ChildPool(spawn, { ...resolved, keepSpare: !hostProcesses().on }, give);
    this.#sessionChildren = new SessionChildren((holder) => this.#pool.take(holder), resolved);
    this.#pool.warm();
  }

  /**
   * A process for `holder`: one of the host's warm processes (for a session process, one that never ran agent code),
   * configured for this sandbox, else a new one.
   */
  async #spawn(holder: ChildHolder, warmUp: Promise<PreparedRun>, maxRssMb: number): Promise<SupervisedChild> {
    // The modules are read once the child is there: setModules may have replaced them meanwhile.
    const claimed = hostProcesses().claim(holder !== this.#pool);
    if (claimed) {
      const child = await claimed;
      child.adopt(holder, { modules: this.#modules, memoryMb: this.#limits.memoryMb, maxRssMb });
      return child;
    }
    return new SupervisedChild(await childEntry(), { modules: this.#modules, memoryMb: this.#limits.memoryMb, warmUp: () => warmUp, maxRssMb }, holder);
  }

  /** Runs agent TypeScript in a fresh context of an idle sandbox process, given fairly by `options.owner`. Never rejects. */
  async run(code: string, options: RunOptions): Promise<RunOutcome> {
    const started = performance.now();
    if (this.#closed) return failed({ code: 'SPACE_CLOSED', message: 'The sandbox is closed' }, started);
    const owner = ownerOf(options.owner);
    if ('error' in owner) return failed(owner.error, started);
    const prepared = await prepareRun(code, this.#limits, options.limits, this.#modules, options.clock);
    if ('error' in prepared) return failed(prepared.error, started);
    const child = await waitFor((cancel) => this.#pool.acquire(owner.owner, cancel), prepared.run, started, options.signal);
    if (!(child instanceof SupervisedChild)) return failed(child ?? { code: 'SPACE_CLOSED', message: 'The sandbox is closed' }, started);
    return child.run(prepared.run, options, undefined, started);
  }

  /**
   * A session: one context, in its own isolate, whose top-level declarations carry over. It is placed in a sandbox
   * process hosting other sessions of `options.owner` (or of its `processGroup`) when one has room, else in a new one:
   * never with another owner's (group's). Throws `SPACE_CLOSED` once closed, `CONFIG_INVALID` for a bad owner or
   * group, `TOO_MANY_SESSIONS` when the owner holds its share of `maxSessionProcesses`, full, or every session process
   * hosts other owners' sessions.
   */
  createSession(options?: SessionOptions): ProcessSession {
    if (this.#closed) throw new AgentSpacesError('SPACE_CLOSED', 'The sandbox is closed');
    const owner = ownerOf(options?.owner);
    if ('error' in owner) throw new AgentSpacesError('CONFIG_INVALID', owner.error.message, owner.error.data);
    const group = ownerOf(options?.processGroup, 'processGroup');
    if ('error' in group) throw new AgentSpacesError('CONFIG_INVALID', group.error.message, group.error.data);
    // A group packs apart from every owner, even one of the same name.
    const packedBy = group.owner === undefined ? owner.owner : `${GROUP_KEY}${group.owner}`;
    const session = new ProcessSession(this.#limits, () => this.#modules, packedBy, this.#sessionChildren, (s) => this.#sessions.delete(s));
    this.#sessions.add(session);
    return session;
  }

  /** Replaces the importable modules (after a rebuild) in every process; runs that start later see them. */
  setModules(modules: ReadonlyMap<string, string>): void {
    this.#modules = checkModules(modules);
    for (const child of this.#children) child.setModules(this.#modules);
  }

  /** Sandbox processes alive (pooled, spare and session processes) and sessions open. */
  stats(): SandboxStats {
    return { processes: this.#children.size, sessions: this.#sessions.size };
  }

  /** Closes every session and kills every process; runs still going end with `SPACE_CLOSED`. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#pool.close(CLOSED);
    this.#sessionChildren.close();
    await Promise.all([...this.#sessions].map((session) => session.close()));
    // Children still starting for a session process or the pool are killed when they report, or here if they did not.
    for (const child of this.#children) child.kill(CLOSED);
    await Promise.all([...this.#children].map(gone));
  }
}

/** A series of runs in one context, in a sandbox process it shares with other sessions; ends when that process does. */
export class ProcessSession implements SandboxSessionHandle, PlacedSession {
  /** Unique id of the session. */
  readonly id: string = randomUUID();
  /** Whose sessions it is packed with: its owner's, or its process group's (a key no owner has). */
  readonly owner: string | undefined;
  readonly #sessionChild: SessionChild;
  readonly #limits: RunLimits;
  readonly #modules: () => ReadonlyMap<string, string>;
  readonly #onClose: (session: ProcessSession) => void;
  /** Why the session ended, once it has. */
  #ended: WireError | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  /** @internal Created by {@link ProcessSandbox.createSession}, placed in a process by `sessionChildren`. */
  constructor(
    limits: RunLimits,
    modules: () => ReadonlyMap<string, string>,
    owner: string | undefined,
    sessionChildren: SessionChildren,
    onClose: (session: ProcessSession) => void,
  ) {
    this.#limits = limits;
    this.#modules = modules;
    this.owner = owner;
    this.#onClose = onClose;
    this.#sessionChild = sessionChildren.place(this);
  }

  /** Runs agent code in the session's context after any earlier run has finished. Never rejects. */
  run(code: string, options: RunOptions): Promise<RunOutcome> {
    const outcome = this.#queue.then(() => this.#run(code, options));
    this.#queue = outcome;
    return outcome;
  }

  /**
   * Ends the session and frees its isolate in the child: a run still going ends with `SESSION_CLOSED`, later runs are
   * refused. The process goes on hosting the other sessions.
   */
  async close(): Promise<void> {
    if (this.#ended) return;
    this.#ended = { code: 'SESSION_CLOSED', message: `Session ${this.id} is closed` };
    this.#sessionChild.remove(this, { code: 'SESSION_CLOSED', message: 'The session was closed during the run' });
    this.#onClose(this);
  }

  /** @internal {@link PlacedSession}: the process hosting the session is gone. */
  ended(error: WireError): void {
    this.#ended ??= { code: 'SESSION_CLOSED', message: `Session ${this.id} ended: ${error.message}`, data: { reason: error.code, ...error.data } };
    this.#onClose(this);
  }

  async #run(code: string, options: RunOptions): Promise<RunOutcome> {
    const started = performance.now();
    if (this.#ended) return failed(this.#ended, started);
    const prepared = await prepareRun(code, this.#limits, options.limits, this.#modules(), options.clock);
    if ('error' in prepared) return failed(prepared.error, started);
    const child = await waitFor((cancel) => this.#sessionChild.child(cancel), prepared.run, started, options.signal);
    if (this.#ended) return failed(this.#ended, started);
    if (!(child instanceof SupervisedChild)) return failed(child ?? { code: 'SESSION_CLOSED', message: 'The session ended' }, started);
    // The child's session keeps the heap its isolate was created with, whatever the run's memoryMb.
    return child.run(prepared.run, options, this.id, started);
  }
}

/**
 * Waits for `acquire` to give a child, at most until the run's time limit (then `TIMEOUT`) or its signal's abort
 * (then `ABORTED`), which also cancel the wait.
 */
async function waitFor<T>(
  acquire: (cancel: AbortSignal) => Promise<T | WireError | undefined>,
  { limits }: PreparedRun,
  started: number,
  signal: AbortSignal | undefined,
): Promise<T | WireError | undefined> {
  const cancel = new AbortController();
  let why: WireError | undefined;
  const stop = (error: WireError): void => {
    why ??= error;
    cancel.abort();
  };
  const onAbort = (): void => stop(aborted(signal?.reason));
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => stop(timeout(limits)), limits.timeoutMs - (performance.now() - started));
  try {
    // A child that came anyway runs the run, which then ends at once with the same error.
    return (await acquire(cancel.signal)) ?? why;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

function resolveOptions(options: ProcessOptions): Required<ProcessOptions> {
  const resolved = { ...DEFAULTS };
  for (const key of Object.keys(DEFAULTS) as (keyof ProcessOptions)[]) {
    const value = options[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
      throw new AgentSpacesError('CONFIG_INVALID', `${key} must be a positive integer, got ${String(value)}`, { field: key });
    }
    resolved[key] = value;
  }
  return resolved;
}

/** `owner` (option `field`'s value), or the `CONFIG_INVALID` error naming `field` when it is not a string. */
function ownerOf(owner: unknown, field = 'owner'): { owner: string | undefined } | { error: WireError } {
  if (owner === undefined || typeof owner === 'string') return { owner };
  return { error: { code: 'CONFIG_INVALID', message: `${field} must be a string, got ${typeof owner}`, data: { field } } };
}

function gone(child: SupervisedChild): Promise<void> {
  return Promise.race([child.exit, new Promise<void>((resolve) => setTimeout(resolve, EXIT_WAIT_MS).unref())]);
}
