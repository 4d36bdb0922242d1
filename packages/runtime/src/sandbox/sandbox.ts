import { randomUUID } from 'node:crypto';
import { AgentSpacesError, BRIDGE_MODULE, toWireError, type HostPort, type LogLevel, type WireError } from '@agent-spaces/capabilities';
import type { TranspiledScript } from '../assemble.js';
import { resolveLimits, type RunLimits } from '../limits.js';
import { IsolateHost, IsolatePool, type Lease } from '../pool.js';
import { warmTranspiler } from '../transpile.js';
import { execute, type Executed } from './execution.js';
import { failed, prepare, type RunOutcome } from './outcome.js';

/** What a {@link Sandbox} is made of. */
export interface SandboxOptions {
  /** JS source (ESM) of every module agent code may import, by specifier: '@capabilities/<id>' and '@agent-spaces/std'. */
  modules: ReadonlyMap<string, string>;
  /** Limits of every run; a run's own `limits` override them. */
  limits?: Partial<RunLimits>;
}

/** Options of one run. */
export interface RunOptions {
  /** Where capability calls go. */
  port: HostPort;
  /** Aborting ends the run with `ABORTED` (and aborts the signal given to in-flight `port.call`s). */
  signal?: AbortSignal;
  /** Called with every console line as it is written. */
  onLog?: (entry: { level: LogLevel; message: string; timestamp: string }) => void;
  /** Limits of this run only (`memoryMb` is fixed for a session). */
  limits?: Partial<RunLimits>;
  /**
   * Who the run is for (an MCP client's id): a `ProcessSandbox` shares its processes fairly between owners, and
   * runs without one count as one shared owner. The in-process {@link Sandbox} ignores it.
   */
  owner?: string;
  /**
   * @internal What `code` transpiles to, made already: a sandbox process's runs come with the script the parent made
   * (the process has no transpiler). Its imports are still checked.
   */
  transpiled?: TranspiledScript;
}

/** Options of `SandboxHost.createSession`. */
export interface SessionOptions {
  /** Who the session is for: a `ProcessSandbox` hosts it only with the owner's other sessions. Ignored in-process. */
  owner?: string;
}

/** What a sandbox holds right now: sandbox processes alive (none in-process) and sessions open. */
export interface SandboxStats {
  processes: number;
  sessions: number;
}

/**
 * The sandbox of one space: a warm isolated-vm isolate in which every run gets a fresh context, plus sessions that
 * keep their own context (and isolate) across runs.
 * @example
 * const sandbox = new Sandbox({ modules: new Map([['@capabilities/math', mathProxySource]]) });
 * const outcome = await sandbox.run(`import { add } from '@capabilities/math'; return add({ a: 1, b: 2 });`, { port });
 */
export class Sandbox {
  #modules: ReadonlyMap<string, string>;
  readonly #limits: RunLimits;
  readonly #pool: IsolatePool;
  readonly #sessions = new Set<SandboxSession>();
  #closed = false;

  /** Throws `CONFIG_INVALID` for bad limits or modules. The isolate is prepared in the background right away. */
  constructor(options: SandboxOptions) {
    this.#modules = checkModules(options.modules);
    this.#limits = resolveLimits(options.limits);
    this.#pool = new IsolatePool(this.#limits.memoryMb, () => this.#modules);
    this.#pool.warm();
    warmTranspiler();
  }

  /** Runs agent TypeScript in a fresh context. Never rejects: failures are `{ ok: false, error }`. */
  async run(code: string, options: RunOptions): Promise<RunOutcome> {
    const started = performance.now();
    if (this.#closed) return failed({ code: 'SPACE_CLOSED', message: 'The sandbox is closed' }, started);
    const limits = limitsOf(this.#limits, options.limits);
    if ('error' in limits) return failed(limits.error, started);
    const prepared = await prepare(code, this.#modules, options.transpiled);
    if ('error' in prepared) return failed(prepared.error, started);
    let lease: Lease | undefined;
    try {
      lease = await this.#pool.acquire(limits.limits.memoryMb);
    } catch (error) {
      return failed(toWireError(error, 'INTERNAL', 'The sandbox failed'), started);
    }
    if (!lease) return failed({ code: 'SPACE_CLOSED', message: 'The sandbox is closed' }, started);
    const executed = await execute(lease, {
      script: prepared.script,
      modules: this.#modules,
      limits: limits.limits,
      started,
      persist: false,
      ...runParts(options),
    });
    this.#pool.release(lease);
    return closedDuring(executed, this.#closed, 'SPACE_CLOSED');
  }

  /**
   * A session: one context (in its own isolate) whose top-level declarations carry over from run to run. Takes no
   * {@link SessionOptions}: the owner only places sessions in processes.
   */
  createSession(): SandboxSession {
    if (this.#closed) throw new AgentSpacesError('SPACE_CLOSED', 'The sandbox is closed');
    const session = new SandboxSession(this.#limits, () => this.#modules, (s) => this.#sessions.delete(s));
    this.#sessions.add(session);
    return session;
  }

  /** Replaces the importable modules (after a rebuild); runs that start later see the new sources. */
  setModules(modules: ReadonlyMap<string, string>): void {
    this.#modules = checkModules(modules);
  }

  /** Sessions open; `processes` is always 0 (everything runs in this process). */
  stats(): SandboxStats {
    return { processes: 0, sessions: this.#sessions.size };
  }

  /** Closes every session and disposes every isolate; runs still going end with `SPACE_CLOSED`. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#sessions].map((session) => session.close()));
    this.#pool.close();
  }
}

/** A REPL-like series of runs in one context: top-level declarations of a run are globals of the next. */
export class SandboxSession {
  /** Unique id of the session. */
  readonly id: string = randomUUID();
  readonly #limits: RunLimits;
  readonly #modules: () => ReadonlyMap<string, string>;
  readonly #onClose: (session: SandboxSession) => void;
  /** The session's isolate and context once ready, `undefined` when they must be (re)created. */
  #lease: Promise<Lease | undefined>;
  /** The previous run and its clean-up: runs of a session go one at a time. */
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  /** @internal Created by {@link Sandbox.createSession}. */
  constructor(limits: RunLimits, modules: () => ReadonlyMap<string, string>, onClose: (session: SandboxSession) => void) {
    this.#limits = limits;
    this.#modules = modules;
    this.#onClose = onClose;
    this.#lease = this.#create();
  }

  /** Runs agent code in the session's context after any earlier run has finished. Never rejects. */
  run(code: string, options: RunOptions): Promise<RunOutcome> {
    const outcome = this.#queue.then(() => this.#run(code, options));
    this.#queue = outcome;
    return outcome;
  }

  /** Ends the session: a run still going ends with `SESSION_CLOSED`, later runs are refused. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#onClose(this);
    const lease = await this.#lease;
    lease?.context.release();
    lease?.host.dispose();
  }

  async #run(code: string, options: RunOptions): Promise<RunOutcome> {
    const started = performance.now();
    if (this.#closed) return failed({ code: 'SESSION_CLOSED', message: `Session ${this.id} is closed` }, started);
    const limits = limitsOf(this.#limits, options.limits);
    if ('error' in limits) return failed(limits.error, started);
    const modules = this.#modules();
    const prepared = await prepare(code, modules, options.transpiled);
    if ('error' in prepared) return failed(prepared.error, started);
    let lease = await this.#lease;
    if (!lease || lease.host.disposed) {
      this.#lease = this.#create();
      lease = await this.#lease;
    }
    if (!lease) return failed({ code: 'INTERNAL', message: 'Cannot create the session sandbox' }, started);
    if (this.#closed) return failed({ code: 'SESSION_CLOSED', message: `Session ${this.id} is closed` }, started);
    // memoryMb is the isolate's: fixed for the session
    const executed = await execute(lease, {
      script: prepared.script,
      modules,
      limits: { ...limits.limits, memoryMb: this.#limits.memoryMb },
      started,
      persist: true,
      ...runParts(options),
    });
    // Work the agent queued may still be running after the run's end, settled or not: the next run waits for the
    // context to prove idle, and gets a fresh one when it does not.
    const { host, context } = lease;
    this.#lease = host.settle(context.ping()).then((idle) => (idle ? lease : undefined));
    return closedDuring(executed, this.#closed, 'SESSION_CLOSED');
  }

  async #create(): Promise<Lease | undefined> {
    try {
      const host = await IsolateHost.create(this.#limits.memoryMb);
      const context = await host.newContext(this.#modules());
      if (this.#closed) {
        host.dispose();
        return undefined;
      }
      return { host, context };
    } catch {
      return undefined;
    }
  }
}

/** A copy of `modules`; throws `CONFIG_INVALID` naming an entry that is not a specifier with its source text. */
export function checkModules(modules: ReadonlyMap<string, string>): ReadonlyMap<string, string> {
  if (!(modules instanceof Map)) throw new AgentSpacesError('CONFIG_INVALID', 'modules must be a Map of specifier to source', { field: 'modules' });
  for (const [specifier, source] of modules as Map<unknown, unknown>) {
    if (typeof specifier !== 'string' || typeof source !== 'string' || specifier === BRIDGE_MODULE) {
      throw new AgentSpacesError('CONFIG_INVALID', `modules: ${String(specifier)} must map a specifier (not ${BRIDGE_MODULE}) to source text`, {
        field: `modules.${String(specifier)}`,
      });
    }
  }
  return new Map(modules);
}

/** A run's limits: `override` layered over the sandbox's `base`, or the `CONFIG_INVALID` error naming the bad field. */
export function limitsOf(base: RunLimits, override: Partial<RunLimits> | undefined): { limits: RunLimits } | { error: WireError } {
  if (override === undefined) return { limits: base };
  try {
    return { limits: resolveLimits(base, override) };
  } catch (error) {
    return { error: toWireError(error, 'INTERNAL', 'The sandbox failed') };
  }
}

function runParts(options: RunOptions): { port: HostPort; signal: AbortSignal | undefined; onLog: RunOptions['onLog'] } {
  return { port: options.port, signal: options.signal, onLog: options.onLog };
}

/** A run cut short by `close()` reports the closing, not the disposal it caused. */
function closedDuring(executed: Executed, closed: boolean, code: 'SPACE_CLOSED' | 'SESSION_CLOSED'): RunOutcome {
  const outcome = executed.outcome;
  if (!closed || outcome.ok) return outcome;
  return { ...outcome, error: { code, message: code === 'SPACE_CLOSED' ? 'The sandbox was closed during the run' : 'The session was closed during the run' } };
}
