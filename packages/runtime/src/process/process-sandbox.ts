import { randomUUID } from 'node:crypto';
import { AgentSpacesError, type WireError } from '@agent-spaces/capabilities';
import { resolveLimits, type RunLimits } from '../limits.js';
import { aborted, failed, prepare, timeout, type RunOutcome } from '../sandbox/outcome.js';
import { checkModules, limitsOf, type RunOptions, type SandboxOptions } from '../sandbox/sandbox.js';
import { transpileAsync, warmTranspiler } from '../transpile.js';
import { childEntry } from './child-entry.js';
import { ProcessPool } from './process-pool.js';
import type { Script } from './protocol.js';
import { SandboxProcess, type ProcessOwner } from './sandbox-process.js';

/** What the SDK needs of a sandbox, whichever the isolation: {@link Sandbox} (in-process) and {@link ProcessSandbox}. */
export interface SandboxHost {
  /** Runs agent TypeScript in a fresh context. Never rejects: failures are `{ ok: false, error }`. */
  run(code: string, options: RunOptions): Promise<RunOutcome>;
  /** A series of runs in one context whose top-level declarations carry over. */
  createSession(): SandboxSessionHandle;
  /** Replaces the importable modules; runs that start later see them. */
  setModules(modules: ReadonlyMap<string, string>): void;
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
  /** Sandbox processes for plain runs at most (default 4); more concurrent runs wait for one. Sessions have their own. */
  maxProcesses?: number;
  /** A process whose RSS passes this many MiB after a run is replaced (default 512). */
  maxRssMb?: number;
  /** An idle process beyond the warm spare is stopped after this many ms (default 10 000). */
  idleMs?: number;
}

const DEFAULTS: Required<ProcessOptions> = { maxProcesses: 4, maxRssMb: 512, idleMs: 10_000 };
/** What a new process runs once to warm up. */
const WARM_UP = 'export default 0;';
const CLOSED: WireError = { code: 'SPACE_CLOSED', message: 'The sandbox was closed during the run' };
/** How long `close()` waits for killed processes to be gone. */
const EXIT_WAIT_MS = 2_000;

/**
 * A sandbox whose runs execute in supervised sandbox processes (`isolation: 'process'`): each process hosts an
 * in-process {@link Sandbox} and takes one run at a time, so an abort, a V8 fatal error or a hang in agent code costs
 * only the runs of that process, which end with `SANDBOX_CRASHED` (or `TIMEOUT`), and a fresh process takes its place.
 * Calls still reach the host's {@link HostPort} here, in this process: secrets and handlers never enter a child.
 * @example
 * const sandbox = new ProcessSandbox({ modules, maxProcesses: 4 });
 * const outcome = await sandbox.run(code, { port }); // never rejects
 * await sandbox.close(); // kills every process
 */
export class ProcessSandbox implements SandboxHost {
  #modules: ReadonlyMap<string, string>;
  readonly #limits: RunLimits;
  readonly #pool: ProcessPool;
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
    this.#pool.warm();
    warmTranspiler();
  }

  /** Runs agent TypeScript in a fresh context of an idle sandbox process. Never rejects. */
  async run(code: string, options: RunOptions): Promise<RunOutcome> {
    const started = performance.now();
    if (this.#closed) return failed({ code: 'SPACE_CLOSED', message: 'The sandbox is closed' }, started);
    const resolved = limitsOf(this.#limits, options.limits);
    if ('error' in resolved) return failed(resolved.error, started);
    const { limits } = resolved;
    const script = await scriptOf(code, this.#modules);
    if (!('transpiled' in script)) return failed(script, started);
    const process = await waitFor((cancel) => this.#pool.acquire(cancel), limits, started, options.signal);
    if (!(process instanceof SandboxProcess)) return failed(process ?? { code: 'SPACE_CLOSED', message: 'The sandbox is closed' }, started);
    return process.run(script, limits, options, false, started);
  }

  /** A session: one context, in a sandbox process of its own, whose top-level declarations carry over. */
  createSession(): ProcessSession {
    if (this.#closed) throw new AgentSpacesError('SPACE_CLOSED', 'The sandbox is closed');
    const session = new ProcessSession(
      this.#limits,
      () => this.#modules,
      (owner) => this.#pool.take(owner),
      (s) => this.#sessions.delete(s),
    );
    this.#sessions.add(session);
    return session;
  }

  /** Replaces the importable modules (after a rebuild) in every process; runs that start later see them. */
  setModules(modules: ReadonlyMap<string, string>): void {
    this.#modules = checkModules(modules);
    for (const process of this.#processes) process.setModules(this.#modules);
  }

  /** Closes every session and kills every process; runs still going end with `SPACE_CLOSED`. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#pool.close(CLOSED);
    await Promise.all([...this.#sessions].map((session) => session.close()));
    // Processes still starting for a session or the pool are killed when they report, or here if they did not.
    for (const process of this.#processes) process.kill(CLOSED);
    await Promise.all([...this.#processes].map(gone));
  }
}

/** A series of runs in one context, in a sandbox process pinned to the session; ends when that process does. */
export class ProcessSession implements SandboxSessionHandle {
  /** Unique id of the session. */
  readonly id: string = randomUUID();
  readonly #limits: RunLimits;
  readonly #modules: () => ReadonlyMap<string, string>;
  readonly #onClose: (session: ProcessSession) => void;
  #process: SandboxProcess | undefined;
  /** The next run, waiting for the process to be available. */
  #waiting: ((process: SandboxProcess | undefined) => void) | undefined;
  /** Why the session ended, once it has. */
  #ended: WireError | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  /** @internal Created by {@link ProcessSandbox.createSession}; `take` asks the pool for the session's process. */
  constructor(
    limits: RunLimits,
    modules: () => ReadonlyMap<string, string>,
    take: (owner: ProcessOwner) => void,
    onClose: (session: ProcessSession) => void,
  ) {
    this.#limits = limits;
    this.#modules = modules;
    this.#onClose = onClose;
    take({
      available: (process) => {
        if (this.#ended) return process.kill(this.#ended);
        this.#process = process;
        const waiting = this.#waiting;
        this.#waiting = undefined;
        waiting?.(process);
      },
      exited: (_process, error) => {
        this.#process = undefined;
        this.#ended ??= { code: 'SESSION_CLOSED', message: `Session ${this.id} ended: ${error.message}`, data: { reason: error.code, ...error.data } };
        this.#waiting?.(undefined);
        this.#onClose(this);
      },
    });
  }

  /** Runs agent code in the session's context after any earlier run has finished. Never rejects. */
  run(code: string, options: RunOptions): Promise<RunOutcome> {
    const outcome = this.#queue.then(() => this.#run(code, options));
    this.#queue = outcome;
    return outcome;
  }

  /** Ends the session and kills its process: a run still going ends with `SESSION_CLOSED`, later runs are refused. */
  async close(): Promise<void> {
    const process = this.#process;
    this.#ended ??= { code: 'SESSION_CLOSED', message: `Session ${this.id} is closed` };
    process?.kill({ code: 'SESSION_CLOSED', message: 'The session was closed during the run' });
    this.#waiting?.(undefined);
    this.#onClose(this);
    if (process) await gone(process);
  }

  async #run(code: string, options: RunOptions): Promise<RunOutcome> {
    const started = performance.now();
    if (this.#ended) return failed(this.#ended, started);
    const resolved = limitsOf(this.#limits, options.limits);
    if ('error' in resolved) return failed(resolved.error, started);
    const { limits } = resolved;
    const script = await scriptOf(code, this.#modules());
    if (!('transpiled' in script)) return failed(script, started);
    const process = await waitFor(
      async (cancel) => {
        if (this.#process?.state === 'idle') return this.#process;
        return new Promise<SandboxProcess | undefined>((resolve) => {
          this.#waiting = resolve;
          cancel.addEventListener('abort', () => resolve(undefined), { once: true });
        });
      },
      limits,
      started,
      options.signal,
    );
    this.#waiting = undefined;
    if (!(process instanceof SandboxProcess)) return failed(process ?? this.#ended ?? { code: 'SESSION_CLOSED', message: 'The session ended' }, started);
    // memoryMb is the session isolate's: fixed when the session was created
    return process.run(script, { ...limits, memoryMb: this.#limits.memoryMb }, options, true, started);
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

function gone(process: SandboxProcess): Promise<void> {
  return Promise.race([process.exit, new Promise<void>((resolve) => setTimeout(resolve, EXIT_WAIT_MS).unref())]);
}
