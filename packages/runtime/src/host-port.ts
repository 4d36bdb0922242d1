import type ivm from 'isolated-vm';
import { parseSandboxMessage, type CallOutcome, type HostPort, type LogLevel, type WireError } from '@agent-spaces/capabilities';
import type { RunLimits } from './limits.js';
import { payloadBytes } from './payload.js';
import type { PreludeApi } from './prelude/contract.js';

/** One captured console line. */
export interface LogEntry {
  level: LogLevel;
  message: string;
  /** ISO-8601 time the host received the line. */
  timestamp: string;
}

/** What a run's channel reports to the run that owns it. */
export interface ChannelOwner {
  readonly limits: RunLimits;
  readonly port: HostPort;
  /** Ends the run with `error` (a limit was hit). */
  fail(error: WireError): void;
  onLog?: ((entry: LogEntry) => void) | undefined;
}

const COPY_ARGUMENTS = { arguments: { copy: true } } as const;
const RUN_ENDED: WireError = { code: 'ABORTED', message: 'The run has ended' };

/**
 * The host side of the bridge for one run: receives the sandbox's call and log messages through the context's two
 * Callbacks, validates them (`parseSandboxMessage`, the `kind` each channel expects), enforces the call, payload and
 * log limits, runs calls through the {@link HostPort} and settles them in the sandbox. {@link end} aborts the signal
 * of calls still in flight, and their late outcomes are dropped: they never reach a later run.
 */
export class HostChannel {
  /** Calls accepted so far. */
  calls = 0;
  /** Console lines captured so far. */
  readonly logs: LogEntry[] = [];
  #logBytes = 0;
  #ended = false;
  #inFlight = 0;
  /** Created with the first call: most runs make none, and an abort costs tens of microseconds. */
  #calls: AbortController | undefined;
  readonly #settle: ivm.Reference<PreludeApi['settle']>;
  readonly #owner: ChannelOwner;

  constructor(settle: ivm.Reference<PreludeApi['settle']>, owner: ChannelOwner) {
    this.#settle = settle;
    this.#owner = owner;
  }

  /** The call Callback's host side: `undefined` when accepted, else the error that rejects the call at once. */
  onCall(id: unknown, raw: unknown): WireError | undefined {
    if (this.#ended) return RUN_ENDED;
    const parsed = parseSandboxMessage(raw);
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || !parsed.ok || parsed.message.kind !== 'call') {
      const reason = parsed.ok ? `expected a call message, got kind "${parsed.message.kind}"` : parsed.reason;
      return { code: 'INTERNAL', message: `Malformed call from the sandbox: ${reason}` };
    }
    const message = parsed.message;
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
    this.#calls ??= new AbortController();
    this.#inFlight++;
    let pending: Promise<CallOutcome>;
    try {
      pending = this.#owner.port.call(message, this.#calls.signal);
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending.then(
      (outcome) => this.#deliver(id, outcome, message.capability, message.function),
      (error: unknown) => this.#deliver(id, internal(error), message.capability, message.function),
    );
    return undefined;
  }

  /** The log Callback's host side: `undefined`, or the code of the limit that ended the run. */
  onLog(raw: unknown): string | undefined {
    if (this.#ended) return RUN_ENDED.code;
    const parsed = parseSandboxMessage(raw);
    if (!parsed.ok || parsed.message.kind !== 'log') return 'INTERNAL';
    const { level, message } = parsed.message;
    const limit = this.#owner.limits.maxLogBytes;
    this.#logBytes += Buffer.byteLength(message, 'utf8');
    if (this.#logBytes > limit) {
      this.#owner.fail({ code: 'LOG_LIMIT', message: `The run wrote more than ${limit} bytes to the console`, data: { limit } });
      return 'LOG_LIMIT';
    }
    const entry: LogEntry = { level, message, timestamp: new Date().toISOString() };
    this.logs.push(entry);
    try {
      this.#owner.onLog?.(entry);
    } catch {
      // the listener's failure is the host's business, never the sandbox's
    }
    return undefined;
  }

  /** Stops delivering: calls still in flight get their signal aborted, and their outcomes are dropped. */
  end(): void {
    this.#ended = true;
    if (this.#inFlight > 0) this.#calls?.abort();
  }

  #refuse(error: WireError): WireError {
    this.#owner.fail(error);
    return error;
  }

  #deliver(id: number, outcome: CallOutcome, capability: string, fn: string): void {
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
    try {
      this.#settle.applyIgnored(undefined, [id, checked], COPY_ARGUMENTS);
    } catch (error) {
      // Not cloneable (a function in the value, say), or the isolate is gone: then this throws too.
      const message = `The outcome of ${capability}.${fn} cannot be copied into the sandbox: ${error instanceof Error ? error.message : String(error)}`;
      const refused: CallOutcome = { ok: false, error: { code: 'INVALID_RESULT', message, capability, function: fn } };
      try {
        this.#settle.applyIgnored(undefined, [id, refused], COPY_ARGUMENTS);
      } catch {
        // the isolate is gone: nothing to settle
      }
    }
  }
}

/** Narrows what the port returned (it is typed, but it crosses a package boundary) to a {@link CallOutcome}. */
function checkOutcome(outcome: unknown, capability: string, fn: string): CallOutcome {
  if (typeof outcome === 'object' && outcome !== null) {
    const o = outcome as Record<string, unknown>;
    if (o.ok === true) return { ok: true, value: o.value };
    if (o.ok === false && typeof o.error === 'object' && o.error !== null) {
      const e = o.error as Record<string, unknown>;
      if (typeof e.code === 'string' && typeof e.message === 'string') {
        return {
          ok: false,
          error: {
            code: e.code as WireError['code'],
            message: e.message,
            ...(typeof e.capability === 'string' ? { capability: e.capability } : {}),
            ...(typeof e.function === 'string' ? { function: e.function } : {}),
            ...(typeof e.data === 'object' && e.data !== null ? { data: e.data as Record<string, unknown> } : {}),
          },
        };
      }
    }
  }
  return { ok: false, error: { code: 'INTERNAL', message: `The host returned a malformed outcome for ${capability}.${fn}`, capability, function: fn } };
}

function internal(error: unknown): CallOutcome {
  return { ok: false, error: { code: 'INTERNAL', message: `The host port failed: ${error instanceof Error ? error.message : String(error)}` } };
}
