import { randomInt } from 'node:crypto';
import type { CallMessage, CallOutcome, HostPort } from '@agent-spaces/capabilities';
import type { CallEvent, KeptRun, LedgerCall, RunReplay, RunStatus, StartedRun } from '@agent-spaces/bridge';

/** Default size budget of a kept run's ledger (its calls' params and outcomes as JSON). */
export const DEFAULT_LEDGER_BYTES = 1024 * 1024;

/** One call of the run, in the order the script made it. */
interface Entry {
  message: CallMessage;
  /** The bridge's call id, once its `capabilityCall` event told it. */
  callId?: string;
  outcome?: CallOutcome;
  at?: number;
  approvalId?: string;
}

/** What a {@link CallRecorder} needs to keep its run. */
export interface RecorderOptions {
  run: StartedRun;
  /** How the run's clock starts (a replayed run's recorded one; default: now, with a fresh seed). */
  clock?: RunReplay['clock'];
  /** Redacts params before they are kept (outcomes come redacted from the bridge). */
  redact: (value: unknown) => unknown;
  /** Keeps the run durably (`RunStore.keep`, in order with the run's other writes). */
  keep: (run: KeptRun) => void;
  /** Forgets it. */
  forget: () => void;
  maxLedgerBytes: number;
  /** Keep the run when it ends (a session's runs: a restored session replays them). */
  keepEnded: boolean;
}

/**
 * Records one run's calls with their outcomes, in the order the script made them (a few field writes per call; nothing
 * leaves memory), and keeps the run durably when it must outlive the process: as it pauses for approval (before the
 * person is asked), as calls end while it is paused, as it resumes (before the approved call runs), and — for a
 * session's runs — as it ends. A run kept only for its pause is forgotten as it ends.
 */
export class CallRecorder {
  readonly clock: RunReplay['clock'];
  readonly #entries: Entry[] = [];
  readonly #options: RecorderOptions;
  /** The entry whose `capabilityCall` event comes next (the bridge tells it synchronously as the call arrives). */
  #arriving: Entry | undefined;
  /** When the run started, to the fraction of a millisecond (`KeptRun.order`). */
  readonly #order = performance.timeOrigin + performance.now();
  #status: RunStatus = 'running';
  #kept = false;
  /** The script's own approval request while it waits for it. */
  #awaitingScript: string | undefined;

  constructor(options: RecorderOptions) {
    this.#options = options;
    this.clock = options.clock ?? { seed: randomInt(2 ** 32), startedAt: Date.now() };
  }

  /** `port` with every call recorded (its outcome, and when it reached the sandbox). */
  wrap(port: HostPort): HostPort {
    return {
      call: (message, signal) => {
        const entry: Entry = { message };
        this.#entries.push(entry);
        this.#arriving = entry;
        const pending = port.call(message, signal);
        this.#arriving = undefined;
        return pending.then((outcome) => {
          entry.outcome = outcome;
          entry.at = outcome.at ?? Date.now();
          if (this.#status === 'paused') this.#keep('paused');
          return outcome;
        });
      },
    };
  }

  /** Follows the run's events: names calls, and keeps the run as it pauses for approval and resumes. */
  onEvent(event: CallEvent): void {
    if (event.type === 'capabilityCall' && this.#arriving) this.#arriving.callId = event.callId;
    else if (event.type === 'approvalRequired') this.#pause(event);
    else if (event.type === 'approvalResolved') this.#resume(event.id);
  }

  /**
   * The run ended (with `error` when it failed): kept as ended when it ran and is a session's (a restored session
   * replays it), else forgotten if it was kept. A run refused before it ran (types, its script denied) left nothing to
   * replay.
   */
  end(error: KeptRun['error'] | undefined, executed: boolean): void {
    if (this.#options.keepEnded && executed) this.#keep(error ? 'failed' : 'succeeded', error);
    else if (this.#kept) this.#options.forget();
  }

  #pause(event: Extract<CallEvent, { type: 'approvalRequired' }>): void {
    if (event.source === 'script') this.#awaitingScript = event.id;
    else {
      const entry = this.#entries.find((e) => e.callId === event.callId && e.outcome === undefined);
      if (entry) entry.approvalId = event.id;
    }
    this.#keep('paused');
  }

  /** Kept as running before the answered call goes on: a restart then never runs it again. */
  #resume(approvalId: string): void {
    if (this.#awaitingScript === approvalId) this.#awaitingScript = undefined;
    for (const entry of this.#entries) if (entry.approvalId === approvalId) delete entry.approvalId;
    const waiting = this.#awaitingScript !== undefined || this.#entries.some((e) => e.approvalId !== undefined);
    this.#keep(waiting ? 'paused' : 'running');
  }

  #keep(status: RunStatus, error?: KeptRun['error']): void {
    this.#status = status;
    this.#kept = true;
    const ended = status === 'succeeded' || status === 'failed' ? { endedAt: new Date().toISOString(), ...(error ? { error } : {}) } : {};
    const awaiting = this.#awaitingScript ? { awaitingScript: this.#awaitingScript } : {};
    this.#options.keep({ ...this.#options.run, status, replay: this.#replay(), pid: process.pid, order: this.#order, ...ended, ...awaiting });
  }

  /** The ledger as kept: redacted params, outcomes and times, or nothing when over budget or not replayable. */
  #replay(): RunReplay {
    const calls: LedgerCall[] = this.#entries.map((entry) => ledgerCall(entry, this.#options.redact));
    const replayable = calls.every((call) => call.outcome !== undefined || call.approvalId !== undefined);
    const within = JSON.stringify(calls).length <= this.#options.maxLedgerBytes;
    return { clock: this.clock, calls: within ? calls : [], replayable: replayable && within };
  }
}

function ledgerCall(entry: Entry, redact: (value: unknown) => unknown): LedgerCall {
  const { message, outcome, at, approvalId } = entry;
  const call: LedgerCall = { capability: message.capability, function: message.function, params: paramsKey(message.params, redact) };
  if (outcome) call.outcome = outcome.ok ? { ok: true, value: outcome.value } : { ok: false, error: outcome.error };
  if (at !== undefined) call.at = at;
  if (approvalId !== undefined) call.approvalId = approvalId;
  return call;
}

/** The params of a call as a ledger compares them: redacted, as JSON (`undefined` as `null`). */
export function paramsKey(params: unknown, redact: (value: unknown) => unknown): string {
  return JSON.stringify(redact(params)) ?? 'null';
}
