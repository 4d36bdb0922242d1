import { randomUUID } from 'node:crypto';
import { AgentSpacesError, BRIDGE_MODULE, type HostPort, type LogLevel } from '@agent-spaces/capabilities';
import { portSink } from './isolate/channel.js';
import { IsolateRunner, type IsolateSession, type RunRoutes } from './isolate/runner.js';
import { isolatedVm } from './isolate/isolated-vm.js';
import { resolveLimits, type RunLimits } from './limits.js';
import { failed, type RunOutcome } from './outcome.js';
import type { RunHold } from './hold.js';
import type { RunClock } from './prelude/contract.js';
import { prepareRun } from './script/prepare.js';
import { warmTranspiler } from './script/transpile.js';

/** What the SDK needs of a sandbox, whichever the isolation: {@link Sandbox} (in-process) and `ProcessSandbox`. */
export interface AgentSandbox {
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

/** A session of an {@link AgentSandbox}. */
export interface SandboxSessionHandle {
  /** Unique id of the session. */
  readonly id: string;
  /** Runs agent code in the session's context after any earlier run has finished. Never rejects. */
  run(code: string, options: RunOptions): Promise<RunOutcome>;
  /** Ends the session; later runs get `SESSION_CLOSED`. */
  close(): Promise<void>;
}

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
  /** How the run's clock and `Math.random` start (to record it, or to replay a recorded run); default: the real ones. */
  clock?: RunClock;
  /** Holds the run's wall clock while it waits for a person: its time limit does not count that time. */
  hold?: RunHold;
}

/** Options of `AgentSandbox.createSession`. */
export interface SessionOptions {
  /** Who the session is for: a `ProcessSandbox` hosts it only with the owner's other sessions. Ignored in-process. */
  owner?: string;
  /**
   * Whose sessions a `ProcessSandbox` may host beside this one instead of the owner's alone: a wider group that trusts
   * itself (e.g. the owner's principal), whose sessions a crash of any of them then ends. Ignored in-process.
   */
  processGroup?: string;
}

/** What a sandbox holds right now: sandbox processes alive (none in-process) and sessions open. */
export interface SandboxStats {
  processes: number;
  sessions: number;
}

/**
 * The sandbox of one space, in this process (`isolation: 'in-process'`): each run is prepared here (limits, transpile,
 * import check) and executed in a fresh context of a warm isolated-vm isolate; sessions keep their own context (and
 * isolate) across runs.
 * @example
 * const sandbox = new Sandbox({ modules: new Map([['@capabilities/math', mathProxySource]]) });
 * const outcome = await sandbox.run(`import { add } from '@capabilities/math'; return add({ a: 1, b: 2 });`, { port });
 */
export class Sandbox implements AgentSandbox {
  readonly #limits: RunLimits;
  readonly #runner: IsolateRunner;

  /**
   * Throws `CONFIG_INVALID` for bad limits or modules, and `SANDBOX_UNAVAILABLE` when isolated-vm cannot run in this
   * process (not loadable, or node started without `--no-node-snapshot`). The isolate is prepared in the background.
   */
  constructor(options: SandboxOptions) {
    const modules = checkModules(options.modules);
    this.#limits = resolveLimits(options.limits);
    isolatedVm();
    this.#runner = new IsolateRunner(this.#limits.memoryMb, modules);
    warmTranspiler();
  }

  /** Runs agent TypeScript in a fresh context. Never rejects: failures are `{ ok: false, error }`. */
  async run(code: string, options: RunOptions): Promise<RunOutcome> {
    const started = performance.now();
    if (this.#runner.closed) return failed({ code: 'SPACE_CLOSED', message: 'The sandbox is closed' }, started);
    const prepared = await prepareRun(code, this.#limits, options.limits, this.#runner.modules, options.clock);
    if ('error' in prepared) return failed(prepared.error, started);
    return this.#runner.run(prepared.run, routesOf(options), started);
  }

  /**
   * A session: one context (in its own isolate) whose top-level declarations carry over from run to run. Takes no
   * {@link SessionOptions}: the owner only places sessions in processes.
   */
  createSession(): SandboxSession {
    if (this.#runner.closed) throw new AgentSpacesError('SPACE_CLOSED', 'The sandbox is closed');
    return new SandboxSession(this.#limits, this.#runner);
  }

  /** Replaces the importable modules (after a rebuild); runs that start later see the new sources. */
  setModules(modules: ReadonlyMap<string, string>): void {
    this.#runner.modules = checkModules(modules);
  }

  /** Sessions open; `processes` is always 0 (everything runs in this process). */
  stats(): SandboxStats {
    return { processes: 0, sessions: this.#runner.sessions };
  }

  /** Closes every session and disposes every isolate; runs still going end with `SPACE_CLOSED`. */
  async close(): Promise<void> {
    await this.#runner.close();
  }
}

/** A REPL-like series of runs in one context: top-level declarations of a run are globals of the next. */
export class SandboxSession implements SandboxSessionHandle {
  /** Unique id of the session. */
  readonly id: string = randomUUID();
  readonly #limits: RunLimits;
  readonly #modules: () => ReadonlyMap<string, string>;
  readonly #session: IsolateSession;

  /** @internal Created by {@link Sandbox.createSession}. */
  constructor(limits: RunLimits, runner: IsolateRunner) {
    this.#limits = limits;
    this.#modules = () => runner.modules;
    this.#session = runner.createSession();
  }

  /** Runs agent code in the session's context after any earlier run has finished. Never rejects. */
  run(code: string, options: RunOptions): Promise<RunOutcome> {
    return this.#session.run(() => prepareRun(code, this.#limits, options.limits, this.#modules(), options.clock), routesOf(options));
  }

  /** Ends the session: a run still going ends with `SESSION_CLOSED`, later runs are refused. */
  close(): Promise<void> {
    return this.#session.close({ code: 'SESSION_CLOSED', message: `Session ${this.id} is closed` });
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


/** Where the calls, abort and console lines of a run of this process go. */
function routesOf(options: RunOptions): RunRoutes {
  return { calls: portSink(options.port), signal: options.signal, onLog: options.onLog, hold: options.hold };
}
