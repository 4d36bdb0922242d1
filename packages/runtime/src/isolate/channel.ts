import type ivm from 'isolated-vm';
import {
  LOG_LEVELS,
  isRecord,
  payloadBytes,
  readWireError,
  toWireError,
  type CallMessage,
  type CallOutcome,
  type HostPort,
  type LogLevel,
  type RunErrorCode,
  type WireError,
} from '@agent-spaces/capabilities';
import type { RunLimits } from '../limits.js';
import type { LogEntry } from '../outcome.js';
import type { CallError, MainResult, PreludeApi } from '../prelude/contract.js';

/**
 * Where a run's accepted calls go: the host's {@link HostPort} in this process ({@link portSink}), or the parent of a
 * sandbox process over IPC. `seq` is the prelude's number of the call in its context; `deliver` takes the call's
 * outcome back into the sandbox (once; later outcomes of an ended run are dropped).
 */
export type CallSink = (seq: number, message: CallMessage, signal: AbortSignal, deliver: (outcome: CallOutcome) => void) => void;

/** What a run's channel reports to the run that owns it. */
export interface ChannelOwner {
  readonly limits: RunLimits;
  /** Where accepted calls go. */
  readonly calls: CallSink;
  /** Ends the run with `error` (a limit was hit). */
  fail(error: WireError): void;
  /** Stops agent code that goes on after its run failed (disposes the isolate: everything running in it stops at once). */
  stop(): void;
  /** Ends the run with how the agent's code ended. */
  done(result: MainResult): void;
  /** Milliseconds agent code may still compute before the wall clock or the CPU limit ends the run. */
  budgetMs(): number;
  /**
   * Told what isolated-vm raised while running agent code: `undefined` when the budget had already run out, else its
   * timeout, the memory limit, the isolate's disposal, or a promise the agent rejected with no handler yet (which
   * isolated-vm reports and the run survives).
   */
  raised(error: unknown): void;
  onLog?: ((entry: LogEntry) => void) | undefined;
}

const COPY_ARGUMENTS = { arguments: { copy: true } } as const;
type SettleArguments = Parameters<PreludeApi['settle']>;
const RUN_ENDED: CallError = { code: 'ABORTED', message: 'The run has ended' };
/**
 * How long (ms) inline agent code may hold the host's event loop: one stretch longer than this sends the run's later
 * outcomes through the isolate's own thread (a run that computes between calls blocks the host at most once),
 * back-to-back stretches let the event loop turn after this long, and a first stretch tried inline is cut short.
 */
const INLINE_STRETCH_MS = 10;

/**
 * The isolate's way out for one run: receives the sandbox's calls, console lines and end through the context's
 * Callbacks, checks their arguments (they come from untrusted code), enforces the call, payload and
 * log limits, sends calls through the run's {@link CallSink} and settles them in the sandbox. {@link end} aborts the signal
 * of calls still in flight, and their late outcomes are dropped: they never reach a later run.
 *
 * Outcomes are settled inline: `applySync` runs the agent's continuation on the host thread (under the run's
 * remaining budget as isolated-vm's timeout) until it awaits again, and the calls it makes arrive as plain function
 * calls, with no hand-off between threads (about 50 µs each way on a small VM). A plain run's first stretch is tried
 * the same way ({@link tryInline}); a session's, and one that ran long, run on the isolate's own thread, where a busy
 * script stays abortable, and a call made there is settled once that stretch is over. See {@link INLINE_STRETCH_MS}
 * for how long inline code may hold the host's event loop.
 */
export class CallChannel {
  /** Calls accepted so far. */
  calls = 0;
  /** Console lines captured so far. */
  readonly logs: LogEntry[] = [];
  #logBytes = 0;
  #ended = false;
  /** Set when a limit ended the run: agent code that goes on is stopped. */
  #failed = false;
  #inFlight = 0;
  /** Created with the first call: most runs make none, and an abort costs tens of microseconds. */
  #calls: AbortController | undefined;
  /** False once an inline stretch ran long: outcomes then go through the isolate's thread. */
  #inline = true;
  /** `performance.now()` when inline settling began holding the event loop; `undefined` once the loop has turned. */
  #holdingSince: number | undefined;
  /** The run's first stretch on the isolate's thread, until it is over: inline settling waits for it. */
  #firstStretch: Promise<void> | undefined;
  /** What a first stretch tried inline has done to the host, held back until the stretch is known to have ended. */
  #held: (() => void)[] | undefined;
  readonly #settleRef: ivm.Reference<PreludeApi['settle']>;
  readonly #owner: ChannelOwner;

  constructor(settle: ivm.Reference<PreludeApi['settle']>, owner: ChannelOwner) {
    this.#settleRef = settle;
    this.#owner = owner;
  }

  /** The call Callback's host side: `undefined` when accepted, else the error that rejects the call at once. */
  onCall(seq: unknown, capability: unknown, fn: unknown, params: unknown): CallError | undefined {
    if (this.#stopIfFailed() || this.#ended) return RUN_ENDED;
    if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || typeof capability !== 'string' || typeof fn !== 'string') {
      return { code: 'INTERNAL', message: 'Malformed call from the sandbox: it needs a safe integer seq and string capability and function names' };
    }
    const message: CallMessage = { kind: 'call', capability, function: fn, params };
    const limits = this.#owner.limits;
    if (++this.calls > limits.maxCapabilityCalls) {
      this.calls--;
      return this.#refuse({
        code: 'MAX_CALLS',
        message: `The run exceeded its limit of ${limits.maxCapabilityCalls} capability calls`,
        data: { limit: limits.maxCapabilityCalls },
      });
    }
    const size = payloadBytes(message.params, limits.maxPayloadBytes);
    if (size > limits.maxPayloadBytes) {
      return this.#refuse({
        code: 'PAYLOAD_TOO_LARGE',
        message: `Params of ${message.capability}.${message.function} exceed the limit of ${limits.maxPayloadBytes} bytes`,
        capability: message.capability,
        function: message.function,
        data: { limit: limits.maxPayloadBytes, direction: 'params' },
      });
    }
    this.#effect(() => this.#dispatch(seq, message));
    return undefined;
  }

  /** The log Callback's host side: `undefined`, or the code of the limit that ended the run. */
  onLog(level: unknown, message: unknown): RunErrorCode | undefined {
    if (this.#stopIfFailed() || this.#ended) return RUN_ENDED.code;
    if (!LOG_LEVELS.includes(level as LogLevel) || typeof message !== 'string') return 'INTERNAL';
    const limit = this.#owner.limits.maxLogBytes;
    this.#logBytes += Buffer.byteLength(message, 'utf8');
    if (this.#logBytes > limit) {
      this.#refuse({ code: 'LOG_LIMIT', message: `The run wrote more than ${limit} bytes to the console`, data: { limit } });
      return 'LOG_LIMIT';
    }
    const entry: LogEntry = { level: level as LogLevel, message, timestamp: new Date().toISOString() };
    this.#effect(() => {
      this.logs.push(entry);
      try {
        this.#owner.onLog?.(entry);
      } catch {
        // the listener's failure is the host's business, never the sandbox's
      }
    });
    return undefined;
  }

  /** The done Callback's host side: the run's code has ended with `result` (built by the prelude). */
  onDone(result: unknown): void {
    this.#effect(() => {
      if (!this.#ended) this.#owner.done(result as MainResult);
    });
  }

  /**
   * Tries the run's first stretch inline: `start(timeoutMs)` runs it on the host thread, as far as its first wait,
   * within {@link INLINE_STRETCH_MS} (or the run's budget, if less). Its calls, console lines and end reach the host
   * only once it is over. Returns false when it ran past that while budget was left: then nothing it did has reached
   * the host, the channel is ended, and the run must start over in a fresh context (on the isolate's thread).
   */
  tryInline(start: (timeoutMs: number) => void): boolean {
    const budget = this.#owner.budgetMs();
    if (budget <= 0) {
      this.#owner.raised(undefined);
      return true;
    }
    const held: (() => void)[] = [];
    this.#held = held;
    let thrown: { error: unknown } | undefined;
    const started = performance.now();
    try {
      start(Math.ceil(Math.min(budget, INLINE_STRETCH_MS)));
    } catch (error) {
      thrown = { error };
    } finally {
      this.#held = undefined;
    }
    if (thrown && budget > INLINE_STRETCH_MS && performance.now() - started >= INLINE_STRETCH_MS && isTimeout(thrown.error)) {
      this.#ended = true;
      return false;
    }
    for (const effect of held) effect();
    if (thrown) this.#owner.raised(thrown.error);
    return true;
  }

  /**
   * Tells the channel that the run's first stretch is running on the isolate's thread until `stretch` settles. That
   * thread lets the isolate go while it waits in a Callback, so settling inline before then could run microtasks
   * under the agent's own stack.
   */
  startedOn(stretch: Promise<void>): void {
    this.#firstStretch = stretch.then(
      () => {
        this.#firstStretch = undefined;
      },
      (error: unknown) => {
        this.#firstStretch = undefined;
        if (!this.#ended) this.#owner.raised(error);
      },
    );
  }

  /** Stops delivering: calls still in flight get their signal aborted, and their outcomes are dropped. */
  end(): void {
    this.#ended = true;
    if (this.#inFlight > 0) this.#calls?.abort();
  }

  #refuse(error: CallError): CallError {
    this.#effect(() => {
      this.#failed = true;
      this.#owner.fail(error);
    });
    return error;
  }

  /**
   * Agent code that reaches the host again after a limit ended its run (it caught the refusal and went on) is stopped
   * at once: it may be running inline, where nothing else could stop it before its budget runs out.
   */
  #stopIfFailed(): boolean {
    if (this.#failed) this.#owner.stop();
    return this.#failed;
  }

  /** Runs `effect` now, or after the first stretch when it is being tried inline. */
  #effect(effect: () => void): void {
    if (this.#held) this.#held.push(effect);
    else effect();
  }

  /** Sends an accepted call to the sink; its outcome is delivered into the sandbox. */
  #dispatch(seq: number, message: CallMessage): void {
    this.#calls ??= new AbortController();
    this.#inFlight++;
    this.#owner.calls(seq, message, this.#calls.signal, (outcome) => this.#deliver(seq, outcome, message.capability, message.function));
  }

  #deliver(seq: number, outcome: CallOutcome, capability: string, fn: string): void {
    this.#inFlight--;
    if (this.#ended) return;
    const checked = checkOutcome(outcome, capability, fn);
    const limit = this.#owner.limits.maxPayloadBytes;
    if (checked.ok && payloadBytes(checked.value, limit) > limit) {
      this.#owner.fail({
        code: 'PAYLOAD_TOO_LARGE',
        message: `The result of ${capability}.${fn} exceeds the limit of ${limit} bytes`,
        capability,
        function: fn,
        data: { limit, direction: 'result' },
      });
      return;
    }
    this.#settle(seq, checked, capability, fn);
  }

  /**
   * Settles call `seq` in the sandbox: inline, or queued on the isolate's thread once the run has been sent back there.
   * An inline settle waits for the run's first stretch to be over, and for the next turn of the event loop when
   * inline stretches have held it for {@link INLINE_STRETCH_MS} (timers, I/O and aborts get their turn).
   */
  #settle(seq: number, outcome: CallOutcome, capability: string, fn: string): void {
    if (this.#ended) return;
    const inline = this.#inline;
    if (inline && this.#firstStretch) {
      void this.#firstStretch.then(() => this.#settle(seq, outcome, capability, fn));
      return;
    }
    if (inline && this.#holdingLoop()) {
      setImmediate(() => this.#settle(seq, outcome, capability, fn));
      return;
    }
    const args: SettleArguments = outcome.ok ? [seq, true, outcome.value, outcome.at] : [seq, false, outcome.error, outcome.at];
    const failed = (error: unknown): void => {
      if (this.#ended) return;
      if (outcome.ok && /could not be cloned/i.test(String(error))) {
        const message = `The outcome of ${capability}.${fn} cannot be copied into the sandbox: ${error instanceof Error ? error.message : String(error)}`;
        this.#settle(seq, { ok: false, error: { code: 'INVALID_RESULT', message, capability, function: fn } }, capability, fn);
      } else {
        this.#owner.raised(error);
      }
    };
    if (!inline) {
      this.#settleRef.apply(undefined, args, COPY_ARGUMENTS).catch(failed);
      return;
    }
    try {
      this.#runInline(args);
    } catch (error) {
      failed(error);
    }
  }

  /** Runs `settle(...args)` on the host thread: the agent's continuation runs until it awaits again, under the budget. */
  #runInline(args: SettleArguments): void {
    const budget = this.#owner.budgetMs();
    if (budget <= 0) {
      this.#owner.raised(undefined);
      return;
    }
    const started = performance.now();
    try {
      this.#settleRef.applySync(undefined, args, { ...COPY_ARGUMENTS, timeout: Math.ceil(budget) });
    } finally {
      if (performance.now() - started > INLINE_STRETCH_MS) this.#inline = false;
    }
  }

  /** True when inline stretches have held the event loop past {@link INLINE_STRETCH_MS} since it last turned. */
  #holdingLoop(): boolean {
    if (this.#holdingSince === undefined) {
      this.#holdingSince = performance.now();
      setImmediate(() => (this.#holdingSince = undefined));
      return false;
    }
    return performance.now() - this.#holdingSince > INLINE_STRETCH_MS;
  }
}

/**
 * Narrows what the port returned (it is typed, but it crosses a package boundary) to a {@link CallOutcome} for agent
 * code: an error code that is not a run code becomes `INTERNAL`, with the code received kept as `data.code`.
 */
function checkOutcome(outcome: unknown, capability: string, fn: string): CallOutcome {
  if (isRecord(outcome)) {
    let checked: CallOutcome | undefined;
    if (outcome.ok === true) checked = { ok: true, value: outcome.value };
    const error = outcome.ok === false ? readWireError(outcome.error, 'run') : undefined;
    if (error) checked = { ok: false, error };
    if (checked && typeof outcome.at === 'number' && Number.isFinite(outcome.at)) checked.at = outcome.at;
    if (checked) return checked;
  }
  return { ok: false, error: { code: 'INTERNAL', message: `The host returned a malformed outcome for ${capability}.${fn}`, capability, function: fn } };
}

/** True for isolated-vm's error when a synchronous call ran past its timeout. */
export function isTimeout(error: unknown): boolean {
  return /timed out/i.test(String(error));
}

/** The {@link CallSink} of a run in this process: each call goes to `port`, a port that throws fails the call `INTERNAL`. */
export function portSink(port: HostPort): CallSink {
  return (_seq, message, signal, deliver) => {
    let pending: Promise<CallOutcome>;
    try {
      pending = port.call(message, signal);
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending.then(deliver, (error: unknown) => deliver({ ok: false, error: toWireError(error, 'INTERNAL', 'The host port failed') }));
  };
}
