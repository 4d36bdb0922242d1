import { payloadBytes, type WireError } from '@agent-spaces/capabilities';
import type { LogEntry } from '../outcome.js';
import { aborted, cpuLimit, isolateError, resultNotCloneable, resultTooLarge, scriptError, timeout, type RunOutcome } from '../outcome.js';
import type { MainResult } from '../prelude/contract.js';
import { HeldTime, type RunHold } from '../hold.js';
import type { PreparedRun } from '../script/prepare.js';
import { CallChannel, isTimeout, type CallSink, type ChannelOwner } from './channel.js';
import type { Lease } from './pool.js';

/** What one run needs besides its isolate and context. */
export interface Execution {
  /** The run as prepared where it was asked for: its script and limits. */
  run: PreparedRun;
  modules: ReadonlyMap<string, string>;
  calls: CallSink;
  signal: AbortSignal | undefined;
  onLog: ((entry: LogEntry) => void) | undefined;
  /** Keep the script's top-level declarations as globals (sessions). */
  persist: boolean;
  /** `performance.now()` when the run began: the wall clock counts from here. */
  started: number;
  /** Holds the wall clock while the run waits for a person. */
  hold?: RunHold | undefined;
}

/** How a run ended, and whether the agent's code had finished (if not, its isolate may still be busy). */
export interface Executed {
  outcome: RunOutcome;
  settled: boolean;
}

type End = { result: MainResult } | { error: WireError };

/**
 * Runs a prepared script in a leased context under its limits: the wall clock, CPU time, the abort signal and the
 * channel's call, payload and log limits each end the run at once with a structured error. When the run ends,
 * in-flight calls are aborted on the host and their outcomes dropped. A plain run's first stretch is tried inline
 * (see {@link CallChannel.tryInline}); when it runs long, the run starts over in a fresh context, which replaces
 * `lease.context`.
 */
export async function execute(lease: Lease, execution: Execution): Promise<Executed> {
  const run = new RunInIsolate(lease, execution);
  const { signal } = execution;
  const onAbort = (): void => run.finish({ error: aborted(signal?.reason) });
  let begun: Promise<void> | undefined;
  if (signal?.aborted) {
    run.settled = true;
    onAbort();
  } else {
    signal?.addEventListener('abort', onAbort, { once: true });
    begun = run.begin();
  }
  const end = await run.ended;
  // A run can end while a fresh context is being made for its second start: `lease.context` is final once that is over.
  await begun;
  signal?.removeEventListener('abort', onAbort);
  return run.close(end);
}

/** One run in its leased isolate: its clocks, its channel, and how it ended. */
class RunInIsolate {
  /** True once the agent's code has finished (or never started): the isolate holds nothing of it. */
  settled = false;
  /** Resolves with how the run ended, the first time anything ends it. */
  readonly ended: Promise<End>;
  finish!: (end: End) => void;
  readonly #lease: Lease;
  readonly #execution: Execution;
  readonly #cpuStart: bigint;
  #cpuMs = 0;
  #over = false;
  #channel: CallChannel;
  readonly #owner: ChannelOwner;
  #timer: NodeJS.Timeout | undefined;
  readonly #stopOnDispose: () => void;
  readonly #held: HeldTime;

  constructor(lease: Lease, execution: Execution) {
    this.#lease = lease;
    this.#execution = execution;
    this.#cpuStart = lease.isolate.cpuTime;
    this.ended = new Promise<End>((resolve) => {
      this.finish = (end) => {
        this.#over = true;
        resolve(end);
      };
    });
    // While held, only the CPU budget is watched; once released, both again.
    this.#held = new HeldTime(execution.hold, () => {
      clearTimeout(this.#timer);
      if (!this.#over) this.#watch();
    });
    this.#owner = this.#channelOwner();
    this.#channel = this.#openChannel();
    const { limits } = execution.run;
    this.#stopOnDispose = lease.isolate.onDispose(() => this.finish({ error: isolateError(new Error('The isolate was disposed'), limits, true) }));
    this.#timer = setTimeout(() => this.#watch(), Math.max(0, Math.min(this.#wallLeft(), limits.cpuTimeMs)));
  }

  /** Links and starts the agent's code; a plain run once more on the isolate's thread if its inline start ran long. */
  async begin(): Promise<void> {
    const { run, modules, persist } = this.#execution;
    const lease = this.#lease;
    try {
      const agent = lease.context.link(run.script, modules, this.#wallLeft());
      if (persist) return this.#channel.startedOn(lease.context.start(agent, true, run.clock));
      if (this.#channel.tryInline((timeoutMs) => lease.context.startInline(agent, timeoutMs, run.clock))) return;
      lease.context.release();
      lease.context = await lease.isolate.newContext(modules);
      if (this.#over) {
        this.settled = true;
        return;
      }
      this.#channel = this.#openChannel();
      this.#channel.startedOn(lease.context.start(lease.context.link(run.script, modules, this.#wallLeft()), false, run.clock));
    } catch (error) {
      // Linking runs only trusted code, and a new context none: nothing of the agent's is left running.
      this.settled = true;
      this.finish({ error: isolateError(error, run.limits, lease.isolate.disposed) });
    }
  }

  /** Stops the run's clocks and channel, and turns how it ended into its outcome. */
  close(end: End): Executed {
    clearTimeout(this.#timer);
    this.#held.stop();
    this.#stopOnDispose();
    this.#channel.end();
    this.#lease.context.channel = undefined;
    const { limits } = this.#execution.run;
    const stats = { durationMs: this.#elapsed(), capabilityCalls: this.#channel.calls, cpuTimeMs: this.#cpuUsedMs() };
    const logs = this.#channel.logs;
    const settled = this.settled;
    if ('error' in end) return { settled, outcome: { ok: false, error: end.error, logs, stats } };
    if (!end.result.ok) {
      const error = 'thrown' in end.result ? scriptError(end.result.thrown) : resultNotCloneable(end.result.notCloneable);
      return { settled, outcome: { ok: false, error, logs, stats } };
    }
    const value = end.result.value;
    if (payloadBytes(value, limits.maxPayloadBytes) > limits.maxPayloadBytes) {
      return { settled, outcome: { ok: false, error: resultTooLarge(limits), logs, stats } };
    }
    return { settled, outcome: { ok: true, value, logs, stats } };
  }

  #openChannel(): CallChannel {
    const channel = new CallChannel(this.#lease.context.settle, this.#owner);
    this.#lease.context.channel = channel;
    return channel;
  }

  #channelOwner(): ChannelOwner {
    const { run, calls, onLog } = this.#execution;
    const { limits } = run;
    const isolate = this.#lease.isolate;
    return {
      limits,
      calls,
      onLog,
      fail: (error) => this.finish({ error }),
      stop: () => isolate.dispose(),
      done: (result) => {
        this.settled = true;
        this.finish({ result });
      },
      budgetMs: () => Math.min(this.#wallLeft(), this.#cpuLeft()),
      raised: (error) => {
        // A budget ran out (isolated-vm's timeout is the smaller of the two), or the isolate is gone (the memory limit,
        // or the sandbox closing); anything else is a rejection the agent had not handled yet, and the run goes on.
        if (error === undefined || isTimeout(error)) this.finish({ error: this.#cpuLeft() <= this.#wallLeft() ? cpuLimit(limits) : timeout(limits) });
        else if (isolate.disposed) this.finish({ error: isolateError(error, limits, true) });
      },
    };
  }

  /**
   * One timer watches both clocks: CPU time grows no faster than wall time, so it is checked no earlier than it could
   * have run out, and again when what is left of either budget has passed.
   */
  #watch(): void {
    const { limits } = this.#execution.run;
    const wall = this.#wallLeft();
    if (wall <= 0) return this.finish({ error: timeout(limits) });
    const cpu = this.#cpuLeft();
    if (cpu <= 0) return this.finish({ error: cpuLimit(limits) });
    this.#timer = setTimeout(() => this.#watch(), Math.max(1, Math.min(wall, cpu)));
  }

  #cpuUsedMs(): number {
    const isolate = this.#lease.isolate;
    if (!isolate.disposed) this.#cpuMs = Number(isolate.cpuTime - this.#cpuStart) / 1e6;
    return this.#cpuMs;
  }

  #elapsed(): number {
    return performance.now() - this.#execution.started;
  }

  /** Wall time left, not counting the time held (none while held). */
  #wallLeft(): number {
    if (this.#held.held) return Infinity;
    return this.#execution.run.limits.timeoutMs - (this.#elapsed() - this.#held.ms());
  }

  #cpuLeft(): number {
    return this.#execution.run.limits.cpuTimeMs - this.#cpuUsedMs();
  }
}
