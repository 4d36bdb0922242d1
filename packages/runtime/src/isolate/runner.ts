import { toWireError, type WireError } from '@agent-spaces/capabilities';
import { failed, type LogEntry, type RunOutcome } from '../outcome.js';
import type { RunHold } from '../hold.js';
import type { PreparedRun } from '../script/prepare.js';
import { AgentIsolate } from './agent-isolate.js';
import type { CallSink } from './channel.js';
import { execute, type Executed } from './execution.js';
import { IsolatePool, type Lease } from './pool.js';

/** What a prepared run reports to: where its calls go, what aborts it, who hears its console lines. */
export interface RunRoutes {
  calls: CallSink;
  signal: AbortSignal | undefined;
  onLog: ((entry: LogEntry) => void) | undefined;
  /** Holds the run's wall clock while it waits for a person. */
  hold?: RunHold | undefined;
}

const CLOSED: WireError = { code: 'SPACE_CLOSED', message: 'The sandbox is closed' };

/**
 * Executes prepared runs in isolates of this process: each plain run in a fresh context of a warm, pooled isolate,
 * each session in an isolate and context of its own. The one executor of both isolations: the in-process `Sandbox`
 * hands it the runs it prepared, and a sandbox process the runs its parent prepared.
 */
export class IsolateRunner {
  /** The modules runs may import, linked into every context. */
  modules: ReadonlyMap<string, string>;
  readonly #memoryMb: number;
  readonly #pool: IsolatePool;
  readonly #sessions = new Set<IsolateSession>();
  #closed = false;

  /** Warms an isolate of `memoryMb` (the plain runs' heap) with `modules` linked, in the background. */
  constructor(memoryMb: number, modules: ReadonlyMap<string, string>) {
    this.modules = modules;
    this.#memoryMb = memoryMb;
    this.#pool = new IsolatePool(memoryMb, () => this.modules);
    this.#pool.warm();
  }

  /** True after {@link close}. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Sessions open. */
  get sessions(): number {
    return this.#sessions.size;
  }

  /** Executes `run` in a fresh context, its wall clock counting from `started`. Never rejects. */
  async run(run: PreparedRun, routes: RunRoutes, started: number): Promise<RunOutcome> {
    if (this.#closed) return failed(CLOSED, started);
    let lease: Lease | undefined;
    try {
      lease = await this.#pool.acquire(run.limits.memoryMb);
    } catch (error) {
      return failed(toWireError(error, 'INTERNAL', 'The sandbox failed'), started);
    }
    if (!lease) return failed(CLOSED, started);
    const executed = await execute(lease, { run, modules: this.modules, started, persist: false, ...routes });
    this.#pool.release(lease);
    return closedDuring(executed, this.#closed, 'SPACE_CLOSED');
  }

  /** A session: one context, in an isolate of its own (the plain runs' heap, for all its runs), kept across runs. */
  createSession(): IsolateSession {
    const session = new IsolateSession(this.#memoryMb, () => this.modules, (s) => this.#sessions.delete(s));
    this.#sessions.add(session);
    return session;
  }

  /** Closes every session and disposes every isolate; runs still going end with `SPACE_CLOSED`. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#sessions].map((session) => session.close()));
    this.#pool.close();
  }
}

/**
 * A REPL-like series of runs in one context: top-level declarations of a run are globals of the next. Runs go one at
 * a time, in the order given, each once the context has proved idle after the one before.
 */
export class IsolateSession {
  readonly #memoryMb: number;
  readonly #modules: () => ReadonlyMap<string, string>;
  readonly #onClose: (session: IsolateSession) => void;
  /** The session's isolate and context once ready, `undefined` when they must be (re)created. */
  #lease: Promise<Lease | undefined>;
  /** The previous run and its clean-up. */
  #queue: Promise<unknown> = Promise.resolve();
  #closed: WireError | undefined;

  /** @internal Created by {@link IsolateRunner.createSession}. */
  constructor(memoryMb: number, modules: () => ReadonlyMap<string, string>, onClose: (session: IsolateSession) => void) {
    this.#memoryMb = memoryMb;
    this.#modules = modules;
    this.#onClose = onClose;
    this.#lease = this.#create();
  }

  /**
   * Executes the run `prepare` gives, once the runs before it are over (`prepare` is called then, and the wall clock
   * starts); the run's `memoryMb` is the session's. Never rejects.
   */
  run(prepare: () => Promise<{ run: PreparedRun } | { error: WireError }>, routes: RunRoutes): Promise<RunOutcome> {
    const outcome = this.#queue.then(() => this.#run(prepare, routes));
    this.#queue = outcome;
    return outcome;
  }

  /** Ends the session (its isolate is freed): a run still going ends with `error`, later runs are refused with it. */
  async close(error: WireError = { code: 'SESSION_CLOSED', message: 'The session is closed' }): Promise<void> {
    if (this.#closed) return;
    this.#closed = error;
    this.#onClose(this);
    const lease = await this.#lease;
    lease?.context.release();
    lease?.isolate.dispose();
  }

  async #run(prepare: () => Promise<{ run: PreparedRun } | { error: WireError }>, routes: RunRoutes): Promise<RunOutcome> {
    const started = performance.now();
    if (this.#closed) return failed(this.#closed, started);
    const prepared = await prepare();
    if ('error' in prepared) return failed(prepared.error, started);
    let lease = await this.#lease;
    if (!lease || lease.isolate.disposed) {
      this.#lease = this.#create();
      lease = await this.#lease;
    }
    if (!lease) return failed({ code: 'INTERNAL', message: 'Cannot create the session sandbox' }, started);
    if (this.#closed) return failed(this.#closed, started);
    // memoryMb is the isolate's: fixed for the session
    const run = { ...prepared.run, limits: { ...prepared.run.limits, memoryMb: this.#memoryMb } };
    const executed = await execute(lease, { run, modules: this.#modules(), started, persist: true, ...routes });
    // Work the agent queued may still be running after the run's end, settled or not: the next run waits for the
    // context to prove idle, and gets a fresh one when it does not.
    const { isolate, context } = lease;
    this.#lease = isolate.settle(context.ping()).then((idle) => (idle ? lease : undefined));
    return closedDuring(executed, this.#closed !== undefined, 'SESSION_CLOSED');
  }

  async #create(): Promise<Lease | undefined> {
    try {
      const isolate = await AgentIsolate.create(this.#memoryMb);
      const context = await isolate.newContext(this.#modules());
      if (this.#closed) {
        isolate.dispose();
        return undefined;
      }
      return { isolate, context };
    } catch {
      return undefined;
    }
  }
}

/** A run cut short by `close()` reports the closing, not the disposal it caused. */
function closedDuring(executed: Executed, closed: boolean, code: 'SPACE_CLOSED' | 'SESSION_CLOSED'): RunOutcome {
  const outcome = executed.outcome;
  if (!closed || outcome.ok) return outcome;
  return { ...outcome, error: { code, message: code === 'SPACE_CLOSED' ? 'The sandbox was closed during the run' : 'The session was closed during the run' } };
}
