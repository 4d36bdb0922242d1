import type { CallMessage, CallOutcome, HostPort, WireError } from '@agent-spaces/capabilities';
import type { ApprovalOutcome, ApprovalRequest, Approver, KeptRun, LedgerCall } from '@agent-spaces/bridge';
import { paramsKey } from './recorder.js';

/** A kept run to replay, and the answers to the approvals it waited for. */
export interface Replay {
  kept: KeptRun;
  /** The answers by approval id (calls' requests and the script's). */
  answers: ReadonlyMap<string, ApprovalOutcome>;
  /** Every call must come from the ledger (a session's run restored): a call past its end diverges. */
  strict: boolean;
}

/**
 * Replays a kept run's ledger: the script's calls, in order, get their recorded outcomes (and the clock its recorded
 * times) without reaching the bridge; a call that waited for approval goes to the bridge, its approval answered with
 * the answer on record; past the ledger's end calls go live (a paused run resumed) or diverge (a session restored). A
 * call that differs from the ledger (capability, function or redacted params) ends the run `REPLAY_DIVERGED` before
 * anything runs: the port aborts {@link signal}.
 */
export class ReplayPort {
  /** Set when the script diverged from its ledger. */
  diverged: WireError | undefined;
  readonly #abort = new AbortController();
  readonly #replay: Replay;
  readonly #redact: (value: unknown) => unknown;
  /** Requests answered from the record: `capability.function params`, with their answers, each used once. */
  readonly #answered: { key: string; answer: ApprovalOutcome }[] = [];
  #next = 0;

  constructor(replay: Replay, redact: (value: unknown) => unknown) {
    this.#replay = replay;
    this.#redact = redact;
  }

  /** Aborts when the script diverged. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** `port` behind the ledger. */
  wrap(port: HostPort): HostPort {
    return {
      call: (message, signal) => {
        const index = this.#next++;
        const entry = this.#replay.kept.replay.calls[index];
        if (!entry) return this.#replay.strict ? this.#diverge(index, message, undefined) : port.call(message, signal);
        const params = paramsKey(message.params, this.#redact);
        if (entry.capability !== message.capability || entry.function !== message.function || entry.params !== params) return this.#diverge(index, message, entry);
        if (entry.outcome) return Promise.resolve({ ...entry.outcome, ...(entry.at === undefined ? {} : { at: entry.at }) } as CallOutcome);
        const answer = entry.approvalId === undefined ? undefined : this.#replay.answers.get(entry.approvalId);
        if (!answer) return this.#diverge(index, message, entry);
        this.#answered.push({ key: `${message.capability}.${message.function} ${params}`, answer });
        return port.call(message, signal);
      },
    };
  }

  /**
   * The run's approver: a request the ledger's paused call (or the paused script) makes is answered with the answer on
   * record; any other goes to `fallback`, and without one waits for an answer through the approval store
   * (`approvals.resolve`, another process) until it expires — a resumed run has no one else to ask.
   */
  approver(fallback: Approver | undefined): Approver | undefined {
    const script = this.#replay.kept.awaitingScript;
    const scriptAnswer = script === undefined ? undefined : this.#replay.answers.get(script);
    if (this.#replay.kept.replay.calls.every((call) => call.approvalId === undefined) && !scriptAnswer) return fallback;
    return (request: ApprovalRequest, context) => {
      const found = request.capability === '' ? scriptAnswer : this.#take(`${request.capability}.${request.function} ${JSON.stringify(request.params) ?? 'null'}`);
      if (found) return { approved: found.approved, by: found.by, ...(found.reason ? { reason: found.reason } : {}), ...(found.from ? { from: found.from } : {}) };
      return fallback ? fallback(request, context) : new Promise<boolean>((resolve) => context.signal.addEventListener('abort', () => resolve(false)));
    };
  }

  #take(key: string): ApprovalOutcome | undefined {
    const index = this.#answered.findIndex((entry) => entry.key === key);
    return index < 0 ? undefined : this.#answered.splice(index, 1)[0]!.answer;
  }

  #diverge(index: number, message: CallMessage, expected: LedgerCall | undefined): Promise<CallOutcome> {
    const made = `${message.capability}.${message.function}`;
    const wanted = expected ? `${expected.capability}.${expected.function}` : 'no call (the ledger ends here)';
    this.diverged ??= {
      code: 'REPLAY_DIVERGED',
      message: `Replaying run ${this.#replay.kept.id}: call ${index + 1} is ${made}, but the ledger holds ${wanted}${expected && !expected.outcome && !expected.approvalId ? ' with no outcome' : ''}; the run ended before it ran`,
      data: { index, made, expected: wanted },
    };
    this.#abort.abort(this.diverged);
    return Promise.resolve({ ok: false, error: this.diverged });
  }
}
