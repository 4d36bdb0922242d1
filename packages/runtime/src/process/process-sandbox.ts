import { randomUUID } from 'node:crypto';
import { AgentSpacesError, type WireError } from '@agent-spaces/capabilities';
import { resolveLimits, type RunLimits } from '../limits.js';
import { aborted, failed, prepare, timeout, type RunOutcome } from '../sandbox/outcome.js';
import { checkModules, limitsOf, type RunOptions, type SandboxOptions, type SandboxStats, type SessionOptions } from '../sandbox/sandbox.js';
import { transpileAsync, warmTranspiler } from '../transpile.js';
import { childEntry } from './child-entry.js';
import { ProcessPool } from './process-pool.js';
import type { Script } from './protocol.js';
import { SandboxProcess, type ProcessOwner } from './sandbox-process.js';
import { SessionHosts, type HostedSession, type SessionHost } from './session-hosts.js';

/** What the SDK needs of a sandbox, whichever the isolation: {@link Sandbox} (in-process) and {@link ProcessSandbox}. */
export interface SandboxHost {
  /** Runs agent TypeScript in a fresh context. Never rejects: failures are `{ ok: false, error }`. */
  run(code: string, options: RunOptions): Promise<RunOutcome>;
  /** A series of runs in one context whose top-level declarations carry over; `options.owner`: who it is for. */
  createSession(options?: SessionOptions): SandboxSessionHandle;
  /** Replaces the importable modules; runs that start later see them. */
  setModules(modules: ReadonlyMap<string, string>): void;
  /** Sandbox processes alive and sessions open, for health reports. */
  stats(): SandboxStats;
  /** Ends everything; runs still going end with `SPACE_CLOSED`. */
  close(): Promise<void>;
}

/** A session of a {@link SandboxHost}. */
export interface SandboxSessionHandle {
  /** Unique id of the session. */
  readonly id: string;
  /** Runs agent code in the session's context after any earlier run has finished. Never rejects. */
  run(code: string, options: RunOptions): Promise<RunOutcome>;
  /** Ends the session; later runs get `SESSION_CLOSED`. */
  close(): Promise<void>;
}

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
export class ProcessSandbox implements SandboxHost {
  #modules: ReadonlyMap<string, string>;
  readonly #limits: RunLimits;
  readonly #pool: ProcessPool;
  readonly #hosts: SessionHosts;
  readonly #sessions = new Set<ProcessSession>();
  /** Every process not yet exited, the sessions' included. */
  readonly #processes = new Set<SandboxProcess>();
  #closed = false;

  /** Throws `CONFIG_INVALID` for bad limits, modules or process options. The warm spare starts right away. */
  constructor(options: SandboxOptions & ProcessOptions) {
    this.#modules = checkModules(options.modules);
    this.#limits = resolveLimits(options.limits);
    const resolved = resolveOptions(options);
    const spawn = async (owner: ProcessOwner): Promise<SandboxProcess> => {
      const [entry, transpiled] = await Promise.all([childEntry(), transpileAsync(WARM_UP)]);
      const init = { modules: this.#modules, limits: this.#limits, warmUp: { code: WARM_UP, transpiled }, maxRssMb: resolved.maxRssMb };
      const process = new SandboxProcess(entry, init, owner);
      this.#processes.add(process);
      void process.exit.then(() => this.#processes.delete(process));
      return process;
    };
    this.#pool = new ProcessPool(spawn, resolved);
    this.#hosts = new SessionHosts((owner) => this.#pool.take(owner), resolved);
    this.#pool.warm();
    warmTranspiler();
  }

  /** Runs agent TypeScript in a fresh context of an idle sandbox process, given fairly by `options.owner`. Never rejects. */
  async run(code: string, options: RunOptions): Promise<RunOutcome> {
    const started = performance.now();
    if (this.#closed) return failed({ code: 'SPACE_CLOSED', message: 'The sandbox is closed' }, started);
    const owner = ownerOf(options);
    if ('error' in owner) return failed(owner.error, started);
    const resolved = limitsOf(this.#limits, options.limits);
    if ('error' in resolved) return failed(resolved.error, started);
    const { limits } = resolved;
    const script = await scriptOf(code, this.#modules);
    if (!('transpiled' in script)) return failed(script, started);
    const process = await waitFor((cancel) => this.#pool.acquire(owner.owner, cancel), limits, started, options.signal);
    if (!(process instanceof SandboxProcess)) return failed(process ?? { code: 'SPACE_CLOSED', message: 'The sandbox is closed' }, started);
    return process.run(script, limits, options, undefined, started);
  }

  /**
   * A session: one context, in its own isolate, whose top-level declarations carry over. It is placed in a sandbox
   * process hosting other sessions of `options.owner` when one has room, else in a new one: never with another
   * owner's. Throws `SPACE_CLOSED` once closed, `CONFIG_INVALID` for a bad owner, `TOO_MANY_SESSIONS` when the owner
   * holds its share of `maxSessionProcesses`, full, or every session process hosts other owners' sessions.
   */
  createSession(options?: SessionOptions): ProcessSession {
    if (this.#closed) throw new AgentSpacesError('SPACE_CLOSED', 'The sandbox is closed');
    const owner = ownerOf(options);
    if ('error' in owner) throw new AgentSpacesError('CONFIG_INVALID', owner.error.message, owner.error.data);
    const session = new ProcessSession(this.#limits, () => this.#modules, owner.owner, this.#hosts, (s) => this.#sessions.delete(s));
    this.#sessions.add(session);
    return session;
  }

  /** Replaces the importable modules (after a rebuild) in every process; runs that start later see them. */
  setModules(modules: ReadonlyMap<string, string>): void {
    this.#modules = checkModules(modules);
    for (const process of this.#processes) process.setModules(this.#modules);
  }

  /** Sandbox processes alive (pooled, spare and session processes) and sessions open. */
  stats(): SandboxStats {
    return { processes: this.#processes.size, sessions: this.#sessions.size };
  }

  /** Closes every session and kills every process; runs still going end with `SPACE_CLOSED`. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#pool.close(CLOSED);
    this.#hosts.close();
    await Promise.all([...this.#sessions].map((session) => session.close()));
    // Processes still starting for a session or the pool are killed when they report, or here if they did not.
    for (const process of this.#processes) process.kill(CLOSED);
    await Promise.all([...this.#processes].map(gone));
  }
}

/** A series of runs in one context, in a sandbox process it shares with other sessions; ends when that process does. */
export class ProcessSession implements SandboxSessionHandle, HostedSession {
  /** Unique id of the session. */
  readonly id: string = randomUUID();
  /** Who the session is for. */
  readonly owner: string | undefined;
  readonly #host: SessionHost;
  readonly #limits: RunLimits;
  readonly #modules: () => ReadonlyMap<string, string>;
  readonly #onClose: (session: ProcessSession) => void;
  /** Why the session ended, once it has. */
  #ended: WireError | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  /** @internal Created by {@link ProcessSandbox.createSession}, placed in a process by `hosts`. */
  constructor(
    limits: RunLimits,
    modules: () => ReadonlyMap<string, string>,
    owner: string | undefined,
    hosts: SessionHosts,
    onClose: (session: ProcessSession) => void,
  ) {
    this.#limits = limits;
    this.#modules = modules;
    this.owner = owner;
    this.#onClose = onClose;
    this.#host = hosts.place(this);
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
    this.#host.remove(this, { code: 'SESSION_CLOSED', message: 'The session was closed during the run' });
    this.#onClose(this);
  }

  /** @internal {@link HostedSession}: the process hosting the session is gone. */
  ended(error: WireError): void {
    this.#ended ??= { code: 'SESSION_CLOSED', message: `Session ${this.id} ended: ${error.message}`, data: { reason: error.code, ...error.data } };
    this.#onClose(this);
  }

  async #run(code: string, options: RunOptions): Promise<RunOutcome> {
    const started = performance.now();
    if (this.#ended) return failed(this.#ended, started);
    const resolved = limitsOf(this.#limits, options.limits);
    if ('error' in resolved) return failed(resolved.error, started);
    const { limits } = resolved;
    const script = await scriptOf(code, this.#modules());
    if (!('transpiled' in script)) return failed(script, started);
    const process = await waitFor((cancel) => this.#host.process(cancel), limits, started, options.signal);
    if (this.#ended) return failed(this.#ended, started);
    if (!(process instanceof SandboxProcess)) return failed(process ?? { code: 'SESSION_CLOSED', message: 'The session ended' }, started);
    // memoryMb is the session isolate's: fixed when the session was created
    return process.run(script, { ...limits, memoryMb: this.#limits.memoryMb }, options, this.id, started);
  }
}

/**
 * Waits for `acquire` to give a process, at most until the run's time limit (then `TIMEOUT`) or its signal's abort
 * (then `ABORTED`), which also cancel the wait.
 */
async function waitFor<T>(
  acquire: (cancel: AbortSignal) => Promise<T | WireError | undefined>,
  limits: RunLimits,
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
    // A process that came anyway runs the run, which then ends at once with the same error.
    return (await acquire(cancel.signal)) ?? why;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

/** Transpiles agent code here, in the host (one esbuild service for all processes), and checks its imports. */
async function scriptOf(code: string, modules: ReadonlyMap<string, string>): Promise<Script | WireError> {
  const prepared = await prepare(code, modules);
  return 'error' in prepared ? prepared.error : { code, transpiled: prepared.script };
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

/** `options.owner`, or the `CONFIG_INVALID` error naming it when it is not a string. */
function ownerOf(options: { owner?: unknown } | undefined): { owner: string | undefined } | { error: WireError } {
  const owner = options?.owner;
  if (owner === undefined || typeof owner === 'string') return { owner };
  return { error: { code: 'CONFIG_INVALID', message: `owner must be a string, got ${typeof owner}`, data: { field: 'owner' } } };
}

function gone(process: SandboxProcess): Promise<void> {
  return Promise.race([process.exit, new Promise<void>((resolve) => setTimeout(resolve, EXIT_WAIT_MS).unref())]);
}
