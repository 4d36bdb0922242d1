import { fork, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { CallMessage, CallOutcome, HostPort, WireError } from '@agent-spaces/capabilities';
import { aborted, failed, timeout, type LogEntry, type RunOutcome } from '../../outcome.js';
import type { RunOptions } from '../../sandbox.js';
import { HeldTime, type RunHold } from '../../hold.js';
import type { PreparedRun } from '../../script/prepare.js';
import type { ToChild } from '../protocol.js';
import { ChildGuard, type ChildState, type GuardedRun } from './child-guard.js';

/** How long past its time limit (or its abort) a plain run's process may take to report the run's end before it is killed. */
const GRACE_MS = 50;
/**
 * The same for a session's run. A session process hosts many sessions, whose work (new isolates, other runs) can
 * delay the report: it is killed, with all its sessions, only when clearly frozen.
 */
const SESSION_GRACE_MS = 1_000;
/** How long a pooled process may take to answer the ping after a run before it is killed. */
const PING_MS = 250;
/** How long a process may take to start (load the runtime, warm its isolate). */
const START_MS = 15_000;
/** How much of the child's stdout and stderr is kept, to guess why it died. */
const OUTPUT_TAIL = 8 * 1024;
/** How long to wait for the rest of a dead child's output. */
const OUTPUT_WAIT_MS = 50;

/**
 * `data.cause` of `SANDBOX_CRASHED`: the process died on its own (`memory` when V8 aborted, likely growing the heap,
 * else `crash`), or was stopped for breaking the protocol, passing the RSS ceiling, or not answering after a run.
 */
type CrashCause = 'memory' | 'crash' | 'protocol' | 'rss' | 'unresponsive';

/** What a {@link SupervisedChild} tells whoever holds it (the pool, or the session process it is). */
export interface ChildHolder {
  /** The child can take a run: it started, or its last run is over and it answered the ping after it. */
  available(child: SupervisedChild): void;
  /** The child is gone (crashed, or stopped; `undefined` when it could not be spawned); `error` is what ended it. */
  exited(child: SupervisedChild | undefined, error: WireError): void;
}

/** A run in a child, from the parent's side. */
interface Run extends GuardedRun {
  runId: number;
  /** The session the run belongs to, if any. */
  session: string | undefined;
  started: number;
  port: HostPort;
  onLog: RunOptions['onLog'];
  logs: LogEntry[];
  /** Aborted when the run ends: calls still in flight on the host stop. */
  callSignal: AbortController | undefined;
  resolve: (outcome: RunOutcome) => void;
  /** True once the caller has its outcome (the child may still be ending the run). */
  done: boolean;
  timers: NodeJS.Timeout[];
  /** Stops hearing the run's abort signal and hold. */
  stopListening: () => void;
}

const live = new Set<ChildProcess>();
let exitHooked = false;
let lastRunId = 0;

/**
 * The parent's side of one sandbox process: forks it (`../child/main.ts`, with advanced serialization,
 * `--no-node-snapshot` and an environment without the host's variables), sends it prepared runs and supervises it. A
 * pooled child is given one plain run at a time; a session process hosts sessions ({@link openSession}) whose runs go
 * on side by side. For each run it forwards the calls to the run's {@link HostPort} and its console lines to `onLog`,
 * ends it at its time limit plus {@link GRACE_MS} (killing the child) or at once on abort, and turns the child's death
 * into `SANDBOX_CRASHED` for every run it had. Every message from the child goes through its {@link ChildGuard}; a
 * breach kills it.
 */
export class SupervisedChild {
  /** Told when the child becomes available or exits; the pool hands it to a session process by replacing it. */
  holder: ChildHolder;
  /**
   * `starting` until ready; `busy` during a pooled run; `settling` after it, until the child answers a ping; `dead`
   * once killed or exited. A session process stays `idle` while its sessions' runs go on: the pool hands out only
   * pooled children, so nothing asks whether a session process is free.
   */
  state: ChildState = 'starting';
  /** Resolves once the child has exited. */
  readonly exit: Promise<void>;
  readonly #child: ChildProcess;
  #output = '';
  readonly #runs = new Map<number, Run>();
  readonly #guard: ChildGuard<Run>;
  /** The deadline of the start, then of the ping after a pooled child's run. */
  #timer: NodeJS.Timeout | undefined;
  /** What ended the child, once it is dead. */
  #death: WireError | undefined;
  /** The plain runs' heap of the child's runner. */
  #memoryMb: number;
  /** True once agent code ran in the child since its runner was last created fresh. */
  #served = false;
  /** True once agent code ran in the child at all (a {@link reset} does not clear it). */
  #everServed = false;
  /** Messages for the child until its `init` is sent (the warm-up run is being prepared): sent after it, in order. */
  #queued: ToChild[] | undefined = [];

  /**
   * Forks a child running `entry` with `modules` and plain runs' heap `memoryMb`, warmed with the run `warmUp` gives
   * (asked for after the fork, which never waits for it: node's start is the longer); `holder` hears when the child is
   * ready.
   */
  constructor(
    entry: string,
    init: { modules: ReadonlyMap<string, string>; memoryMb: number; warmUp: () => Promise<PreparedRun>; maxRssMb: number },
    holder: ChildHolder,
  ) {
    this.holder = holder;
    this.#memoryMb = init.memoryMb;
    this.#guard = new ChildGuard(this.#runs, init.maxRssMb * 1024 * 1024);
    this.#child = fork(entry, [], {
      serialization: 'advanced',
      execArgv: ['--no-node-snapshot'],
      // Secrets live in the host's environment: the child gets none of it.
      env: process.env.TZ === undefined ? {} : { TZ: process.env.TZ },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    track(this.#child);
    this.exit = new Promise((resolve) => this.#child.once('exit', () => resolve()));
    for (const stream of [this.#child.stdout, this.#child.stderr]) {
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => (this.#output = (this.#output + chunk).slice(-OUTPUT_TAIL)));
      unref(stream);
    }
    this.#child.on('message', (message: unknown) => this.#receive(message));
    this.#child.on('exit', (code, signal) => void this.#exited(code, signal));
    this.#child.on('error', () => this.kill({ code: 'INTERNAL', message: 'The sandbox process failed to start or to receive a message' }));
    this.#child.unref();
    this.#child.channel?.unref();
    // The warm-up run has the sandbox's own limits: its heap is the plain runs'.
    init.warmUp().then(
      (warmUp) => {
        const queued = this.#queued ?? [];
        this.#queued = undefined;
        for (const message of [{ kind: 'init', modules: init.modules, memoryMb: init.memoryMb, warmUp } as const, ...queued]) this.#send(message);
      },
      (error: unknown) => this.kill({ code: 'INTERNAL', message: `Cannot prepare the sandbox process's warm-up run: ${error instanceof Error ? error.message : String(error)}` }),
    );
    this.#timer = setTimeout(() => this.kill({ code: 'INTERNAL', message: `The sandbox process did not start within ${START_MS} ms` }), START_MS).unref();
  }

  /**
   * Executes the prepared `run` in the child (started, and `idle` for a plain run), counting time from `started`.
   * Never rejects: a child that dies during the run ends it with `SANDBOX_CRASHED`, one that misses the time limit
   * by {@link GRACE_MS} is killed and the run ends with `TIMEOUT`. With `session`, the run goes to that session's
   * context (opened with {@link openSession}), and the child may be late by {@link SESSION_GRACE_MS}.
   */
  run(prepared: PreparedRun, options: RunOptions, session: string | undefined, started: number): Promise<RunOutcome> {
    if (this.state === 'dead') return Promise.resolve(failed(this.#death ?? { code: 'SANDBOX_CRASHED', message: 'The sandbox process is gone' }, started));
    if (session === undefined) this.state = 'busy';
    this.#served = this.#everServed = true;
    return new Promise((resolve) => {
      const { limits } = prepared;
      const signal = options.signal;
      const runId = ++lastRunId;
      const graceMs = session === undefined ? GRACE_MS : SESSION_GRACE_MS;
      // The caller hears of an abort at once; the child gets a moment to end the run before it is killed.
      const onAbort = (): void => {
        this.#send({ kind: 'abort', runId });
        this.#finish(run, { ok: false, error: aborted(signal?.reason), cpuTimeMs: 0 });
        run.timers.push(setTimeout(() => this.kill(aborted(signal?.reason)), graceMs).unref());
      };
      const run: Run = {
        runId,
        session,
        limits,
        started,
        port: options.port,
        onLog: options.onLog,
        logs: [],
        logBytes: 0,
        calls: 0,
        callSignal: undefined,
        resolve,
        done: false,
        timers: [],
        stopListening: () => signal?.removeEventListener('abort', onAbort),
      };
      this.#runs.set(runId, run);
      const left = Math.max(1, limits.timeoutMs - (performance.now() - started));
      this.#send({ kind: 'run', runId, run: { ...prepared, limits: { ...limits, timeoutMs: left } }, ...(session === undefined ? {} : { session }) });
      this.#watchTime(run, left + graceMs, options.hold);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * Kills the child when run `run` is still going `deadlineMs` from now, not counting the time its clock is held (the
   * child hears of each hold, and holds its own clock too). Not unref'd: a caller waiting for the run keeps the event
   * loop alive until it ends.
   */
  #watchTime(run: Run, deadlineMs: number, hold: RunHold | undefined): void {
    const armedAt = performance.now();
    let timer = setTimeout(() => this.kill(timeout(run.limits)), deadlineMs);
    run.timers.push(timer);
    if (!hold) return;
    const held = new HeldTime(hold, (isHeld) => {
      if (!run.done) this.#send({ kind: 'hold', runId: run.runId, held: isHeld });
      clearTimeout(timer);
      if (isHeld || run.done) return;
      timer = setTimeout(() => this.kill(timeout(run.limits)), Math.max(1, deadlineMs - (performance.now() - armedAt - held.ms())));
      run.timers.push(timer);
    });
    if (hold.held) {
      clearTimeout(timer);
      this.#send({ kind: 'hold', runId: run.runId, held: true });
    }
    const stop = run.stopListening;
    run.stopListening = () => {
      stop();
      held.stop();
    };
  }

  /** Sends the modules later runs may import. */
  setModules(modules: ReadonlyMap<string, string>): void {
    this.#send({ kind: 'modules', modules });
  }

  /** True once agent code ran in this process, whatever sandbox it served. */
  get everServed(): boolean {
    return this.#everServed;
  }

  /**
   * Hands the child (starting, or idle with no run) to `holder`, a sandbox's pool or session process, configured for
   * it: its modules, the plain runs' heap and the RSS ceiling. A child that ran agent code since its runner was made
   * fresh, or whose heap size differs, starts over with a fresh runner (every isolate disposed); else it keeps its warm
   * isolate and only learns the modules. The caller tells `holder` when it is available.
   */
  adopt(holder: ChildHolder, config: { modules: ReadonlyMap<string, string>; memoryMb: number; maxRssMb: number }): void {
    this.holder = holder;
    this.#guard.maxRssBytes = config.maxRssMb * 1024 * 1024;
    if (this.#served || config.memoryMb !== this.#memoryMb) this.#reset(config.modules, config.memoryMb);
    else this.setModules(config.modules);
  }

  /**
   * Takes the child back from a sandbox that no longer needs it (closed, or the child idle too long): it must be
   * starting, idle or settling, with no run going on. Every isolate is disposed and a fresh runner made, with no
   * module, then the child is pinged: `holder` hears `available` once it answers.
   */
  recycle(holder: ChildHolder, memoryMb: number): void {
    this.holder = holder;
    this.#reset(new Map(), memoryMb);
    if (this.state === 'idle') this.#ping();
  }

  /** True when the child may pass to another holder: alive, no run going on, not busy. */
  get reusable(): boolean {
    return this.#runs.size === 0 && (this.state === 'starting' || this.state === 'idle' || this.state === 'settling');
  }

  #reset(modules: ReadonlyMap<string, string>, memoryMb: number): void {
    this.#served = false;
    this.#memoryMb = memoryMb;
    this.#send({ kind: 'reset', modules, memoryMb });
  }

  /** Sets up session `session` in the child (its own isolate and context) for the runs given to it later. */
  openSession(session: string): void {
    this.#send({ kind: 'open', session });
  }

  /** Closes session `session` in the child, which frees its isolate; its run going on ends at once with `error`. */
  closeSession(session: string, error: WireError): void {
    for (const run of this.#runs.values()) if (run.session === session) this.#finish(run, { ok: false, error, cpuTimeMs: 0 });
    this.#send({ kind: 'close', session });
  }

  /** Kills the child (SIGKILL); runs going on end with `error`, and the holder hears `exited` with it. */
  kill(error: WireError): void {
    if (this.state === 'dead') return;
    this.state = 'dead';
    this.#child.kill('SIGKILL');
    // Whoever waits for `exit` keeps the event loop alive until the child is gone.
    this.#child.ref();
    this.#ended(error);
  }

  /** Acts on a message from the child once its guard has checked it. */
  #receive(raw: unknown): void {
    const checked = this.#guard.check(raw, this.state);
    switch (checked.kind) {
      case 'ready':
      case 'pong':
        clearTimeout(this.#timer);
        this.state = 'idle';
        return this.holder.available(this);
      case 'call':
        return this.#call(checked.run, checked.seq, checked.message);
      case 'log':
        return this.#log(checked.run, checked.entry);
      case 'end':
        return this.#end(checked.run, checked.outcome, checked.rssMb);
      case 'breach':
        return this.kill({ code: 'SANDBOX_CRASHED', message: `The sandbox process broke the protocol (${checked.what}) and was stopped`, data: { cause: 'protocol' satisfies CrashCause } });
      case 'ignore':
        return;
    }
  }

  /** Sends call `seq` of `run` to the run's port, and its outcome back to the child. */
  #call(run: Run, seq: number, message: CallMessage): void {
    if (run.done) return;
    run.callSignal ??= new AbortController();
    let pending: Promise<CallOutcome>;
    try {
      pending = run.port.call(message, run.callSignal.signal);
    } catch (error) {
      pending = Promise.reject(error);
    }
    const { runId } = run;
    const deliver = (outcome: CallOutcome): void => {
      if (this.#runs.get(runId) !== run || run.done) return;
      try {
        this.#child.send({ kind: 'outcome', runId, seq, outcome } satisfies ToChild);
      } catch (error) {
        const detail = error instanceof Error ? error.message : String(error);
        const refused: CallOutcome = {
          ok: false,
          error: { code: 'INVALID_RESULT', message: `The outcome of ${message.capability}.${message.function} cannot be copied into the sandbox: ${detail}` },
        };
        this.#send({ kind: 'outcome', runId, seq, outcome: refused });
      }
    };
    pending.then(deliver, (error: unknown) =>
      deliver({ ok: false, error: { code: 'INTERNAL', message: `The host port failed: ${error instanceof Error ? error.message : String(error)}` } }),
    );
  }

  #log(run: Run, entry: LogEntry): void {
    if (run.done) return;
    run.logs.push(entry);
    try {
      run.onLog?.(entry);
    } catch {
      // the listener's failure is the host's business, never the sandbox's
    }
  }

  #end(run: Run, outcome: RunOutcome, rssMb: number | undefined): void {
    const cpuTimeMs = outcome.stats.cpuTimeMs;
    if (outcome.ok) this.#finish(run, { ok: true, value: outcome.value, cpuTimeMs });
    // The child was given the time left of the run, and names that as the limit.
    else this.#finish(run, { ok: false, error: outcome.error.code === 'TIMEOUT' ? timeout(run.limits) : outcome.error, cpuTimeMs });
    this.#settle(run);
    if (rssMb !== undefined) {
      return this.kill({ code: 'SANDBOX_CRASHED', message: `The sandbox process was recycled: its RSS (${rssMb} MiB) passed the ceiling`, data: { cause: 'rss' satisfies CrashCause } });
    }
    // A session process takes runs whenever its sessions send them: its child checks each session's isolate itself.
    if (run.session !== undefined) return;
    // A pooled child is available again once it has shown its event loop is free.
    this.#ping();
  }

  /** Sends a ping: the child is `settling` until it answers, and killed when it does not within {@link PING_MS}. */
  #ping(): void {
    this.state = 'settling';
    this.#send({ kind: 'ping' });
    this.#timer = setTimeout(() => this.kill({ code: 'SANDBOX_CRASHED', message: 'The sandbox process stopped answering', data: { cause: 'unresponsive' satisfies CrashCause } }), PING_MS).unref();
  }

  /** Gives the run's caller its outcome (once), with the logs and figures the parent gathered. */
  #finish(run: Run, end: { ok: true; value: unknown; cpuTimeMs: number } | { ok: false; error: WireError; cpuTimeMs: number }): void {
    if (run.done) return;
    run.done = true;
    run.stopListening();
    run.callSignal?.abort();
    const stats = { durationMs: performance.now() - run.started, capabilityCalls: Math.min(run.calls, run.limits.maxCapabilityCalls), cpuTimeMs: end.cpuTimeMs };
    run.resolve(end.ok ? { ok: true, value: end.value, logs: run.logs, stats } : { ok: false, error: end.error, logs: run.logs, stats });
  }

  /** The child is done with `run`: its timers stop. */
  #settle(run: Run): void {
    for (const timer of run.timers) clearTimeout(timer);
    this.#runs.delete(run.runId);
  }

  /** The child is gone: the runs going on end with `error`, and the holder hears of it. */
  #ended(error: WireError): void {
    this.#death = error;
    clearTimeout(this.#timer);
    for (const run of [...this.#runs.values()]) {
      this.#finish(run, { ok: false, error, cpuTimeMs: 0 });
      this.#settle(run);
    }
    this.holder.exited(this, error);
  }

  async #exited(exitCode: number | null, signal: NodeJS.Signals | null): Promise<void> {
    if (this.state === 'dead') return;
    this.state = 'dead';
    // The rest of what it printed (V8's last words) may still be in the pipes.
    await Promise.race([Promise.all([closed(this.#child.stdout), closed(this.#child.stderr)]), new Promise((resolve) => setTimeout(resolve, OUTPUT_WAIT_MS))]);
    this.#ended(crashed(exitCode, signal, this.#output));
  }

  #send(message: ToChild): void {
    if (this.#queued) return void this.#queued.push(message);
    try {
      if (this.#child.connected) this.#child.send(message);
    } catch {
      this.kill({ code: 'INTERNAL', message: `Cannot send a ${message.kind} message to the sandbox process` });
    }
  }
}

/** `SANDBOX_CRASHED` for a process that died on its own, with the likely cause. */
function crashed(exitCode: number | null, signal: NodeJS.Signals | null, output: string): WireError {
  const memory = signal === 'SIGABRT' || /heap|invalid (array |string |table )?(size|length)|fatal|out of memory/i.test(output);
  const cause: CrashCause = memory ? 'memory' : 'crash';
  const how = signal ? `signal ${signal}` : `exit code ${String(exitCode)}`;
  const message = memory
    ? `The sandbox process ran out of memory and was aborted by V8 (${how}); the run's work is lost`
    : `The sandbox process exited unexpectedly (${how}); the run's work is lost`;
  return { code: 'SANDBOX_CRASHED', message, data: { signal, exitCode, cause } };
}

function closed(stream: Readable | null): Promise<void> {
  if (!stream || stream.closed) return Promise.resolve();
  return new Promise((resolve) => stream.once('close', () => resolve()));
}

/** A pipe to the child must not keep the host's event loop alive. */
function unref(stream: Readable | null): void {
  (stream as unknown as { unref?: () => void } | null)?.unref?.();
}

/** Children die with the host: a normal exit kills them here; otherwise each exits when its IPC channel closes. */
function track(child: ChildProcess): void {
  if (!exitHooked) {
    exitHooked = true;
    process.on('exit', () => {
      for (const each of live) each.kill('SIGKILL');
    });
  }
  live.add(child);
  child.once('exit', () => live.delete(child));
}
