import type { HostPort, WireError } from '@agent-spaces/capabilities';
import type { Approver, CallEvent, StartedRun } from '@agent-spaces/bridge';
import { RunHold, type RunClock } from '@agent-spaces/runtime';
import type { RunLedger } from '../run-ledger.js';
import { CallRecorder } from './recorder.js';
import { ReplayPort, type Replay } from './replay.js';

/** What makes a run durable: where it is kept and how, and the kept run it replays, if any. */
export interface DurabilityOptions {
  run: StartedRun;
  ledger: RunLedger;
  redact: (value: unknown) => unknown;
  maxLedgerBytes: number;
  /** Keep the run when it ends (a session's runs, when the space's run store was chosen by the app). */
  keepEnded: boolean;
  replay?: Replay | undefined;
}

/**
 * One run's recording and replay together: the port its calls go through, its approver, signal, clock and hold (the
 * wall clock stands still while a call waits for a person), and what its outcome becomes when its script diverged
 * from the ledger it replays.
 */
export class RunDurability {
  /** Holds the run's wall clock while one of its calls waits for a person. */
  readonly hold = new RunHold();
  readonly #recorder: CallRecorder;
  readonly #replay: ReplayPort | undefined;

  constructor(options: DurabilityOptions) {
    const { run, ledger, redact, maxLedgerBytes, keepEnded, replay } = options;
    this.#replay = replay && new ReplayPort(replay, redact);
    this.#recorder = new CallRecorder({
      run,
      ...(replay ? { clock: replay.kept.replay.clock } : {}),
      redact,
      keep: (kept) => ledger.keep(kept),
      forget: () => ledger.forget(),
      maxLedgerBytes,
      keepEnded,
    });
  }

  /** How the run's clock and random numbers start. */
  get clock(): RunClock {
    return this.#recorder.clock;
  }

  /** `port` with the run's calls recorded (and replayed from the ledger first, when replaying). */
  port(port: HostPort): HostPort {
    return this.#recorder.wrap(this.#replay ? this.#replay.wrap(port) : port);
  }

  /** The run's approver: the replay's answers on record first. */
  approver(approver: Approver | undefined): Approver | undefined {
    return this.#replay ? this.#replay.approver(approver) : approver;
  }

  /** The run's signal: `signal`, and the replay's divergence. */
  signal(signal: AbortSignal | undefined): AbortSignal | undefined {
    if (!this.#replay) return signal;
    return signal ? AbortSignal.any([signal, this.#replay.signal]) : this.#replay.signal;
  }

  /** Hears the run's call events before they are emitted (to keep it as it pauses and resumes). */
  onEvent(event: CallEvent): void {
    this.#recorder.onEvent(event);
    if (event.type === 'approvalRequired') this.hold.hold();
    else if (event.type === 'approvalResolved') this.hold.release();
  }

  /** The run's error: the divergence from its ledger when there was one, else `error`. */
  error(error: WireError | undefined): WireError | undefined {
    return this.#replay?.diverged ?? error;
  }

  /** The run ended with `error` (none: it succeeded); `executed`: false when it was refused before it ran. */
  end(error: WireError | undefined, executed: boolean): void {
    this.#recorder.end(error && { code: error.code, message: error.message }, executed);
  }
}
