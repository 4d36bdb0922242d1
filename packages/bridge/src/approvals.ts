import { AgentSpacesError } from '@agent-spaces/capabilities';
import { MemoryApprovalStore } from './stores/approvals.js';
import type { ApprovalAnswer, ApprovalOutcome, ApprovalRecord, ApprovalRequest, ApprovalStore, Approver } from './types.js';

/** Default time a pending approval waits before it counts as denied. */
const DEFAULT_APPROVAL_TIMEOUT_MS = 300_000;

/** Approval requests waiting for an answer (`space.approvals`), read and answered through the approval store. */
export interface Approvals {
  /** The requests waiting now, oldest first. */
  pending(): Promise<ApprovalRequest[]>;
  /**
   * Answers the pending request `id`. Resolves false when there is none (already answered, timed out, never made):
   * an answer can never apply to another request.
   */
  resolve(id: string, answer: ApprovalAnswer): Promise<boolean>;
  /** Request `id` and its answer, when the store keeps it (a durable store keeps answered ones; the embedded one does not). */
  get(id: string): Promise<ApprovalRecord | undefined>;
}

/** Options of {@link ApprovalDesk}. */
export interface ApprovalDeskOptions {
  approver?: Approver;
  /** Wait for {@link Approvals.resolve} when there is no approver, instead of denying at once. */
  awaitResolve?: boolean;
  timeoutMs?: number;
  /** Where the requests and their answers are kept (default: in memory, a {@link MemoryApprovalStore}). */
  store?: ApprovalStore;
}

/** Options of {@link ApprovalDesk.ask}. */
interface AskOptions {
  /** Answers this request instead of the desk's approver. */
  approver?: Approver;
  /** Runs once the request is pending (answerable through `resolve`). */
  onPending?: () => void;
  /**
   * Keep the request pending for an answer through the store (`resolve`, the approvals API) even without an approver,
   * as `awaitResolve` does: for a request its requester may not answer (`approvers`).
   */
  awaitAnswer?: boolean;
}

/**
 * Asks for approvals: each request goes to the approval store, and is answered by the first of the approver,
 * {@link Approvals.resolve} and the timeout. Without an approver (and without `awaitResolve`) a request is denied at
 * once, `by: 'no-approver'`.
 */
export class ApprovalDesk implements Approvals {
  readonly #approver: Approver | undefined;
  readonly #awaitResolve: boolean;
  readonly #timeoutMs: number;
  readonly #store: ApprovalStore;

  constructor(options: ApprovalDeskOptions = {}) {
    this.#approver = options.approver;
    this.#awaitResolve = options.awaitResolve ?? false;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
    this.#store = options.store ?? new MemoryApprovalStore();
  }

  /**
   * True when a request could be approved at all: there is an approver (`approver`, the request's own, or the desk's)
   * or someone is expected to call `resolve` (the desk awaits it, or `awaitAnswer`: this request does).
   */
  canAsk(approver?: Approver, awaitAnswer = false): boolean {
    return approver !== undefined || this.#approver !== undefined || this.#awaitResolve || awaitAnswer;
  }

  pending(): Promise<ApprovalRequest[]> {
    return this.#store.pending();
  }

  get(id: string): Promise<ApprovalRecord | undefined> {
    return typeof id === 'string' ? this.#store.get(id) : Promise.resolve(undefined);
  }

  /** Answers as the host's operator: whatever the request's `approvers` say (`ApprovalService.answer` checks them). */
  resolve(id: string, answer: ApprovalAnswer): Promise<boolean> {
    if (typeof id !== 'string') return Promise.resolve(false);
    return this.#store.answer(id, { ...outcomeOf(answer, 'resolve'), via: 'resolve' });
  }

  /**
   * Asks for `request` (its id must be unique among pending ones) and resolves with the outcome. `options.approver`
   * answers instead of the desk's approver; `options.onPending` runs once the request can be answered through
   * `resolve`. Rejects with `ABORTED` when `signal` aborts first. When anything but the approver settles the request,
   * the approver's `signal` aborts with how it was settled, so it can stop asking. With `options.awaitAnswer` the
   * request waits for an answer through the store even without any approver.
   */
  async ask(request: ApprovalRequest, signal: AbortSignal, options: AskOptions = {}): Promise<ApprovalOutcome> {
    const approver = options.approver ?? this.#approver;
    if (!this.canAsk(approver, options.awaitAnswer)) return { approved: false, by: 'no-approver', reason: 'no approver is configured' };
    if (signal.aborted) throw aborted();
    const now = Date.now();
    request = { ...request, createdAt: new Date(now).toISOString(), expiresAt: new Date(now + this.#timeoutMs).toISOString() };
    if (!(await this.#store.add(request))) throw new AgentSpacesError('INTERNAL', `Approval request ${request.id} is already pending`);
    const asking = new AbortController();
    const waiting = new AbortController();
    const late = `no answer within ${this.#timeoutMs} ms`;
    const timer = setTimeout(() => void this.#store.answer(request.id, { approved: false, by: 'timeout', reason: late, via: 'timeout' }), this.#timeoutMs);
    timer.unref?.();
    const onAbort = () => waiting.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) waiting.abort();
    try {
      options.onPending?.();
      if (approver) this.#askApprover(request, approver, asking.signal);
      const outcome = await this.#store.answered(request.id, waiting.signal);
      if (outcome.via !== 'approver') asking.abort(outcome.via === 'timeout' ? late : 'answered through approvals.resolve()');
      return outcome;
    } catch (error) {
      if (!waiting.signal.aborted) throw error;
      await this.#store.withdraw(request.id);
      asking.abort('the call was aborted');
      throw aborted();
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** Asks `approver` and writes its answer (or its failure, as a denial) to the store. */
  #askApprover(request: ApprovalRequest, approver: Approver, signal: AbortSignal): void {
    Promise.resolve()
      .then(() => approver(request, { signal }))
      .then(
        (answer) => (typeof answer === 'object' && answer !== null ? outcomeOf(answer, 'approver') : { approved: answer === true, by: 'approver' }),
        (error: unknown) => ({ approved: false, by: 'approver', reason: `the approver failed: ${describe(error)}` }),
      )
      .then((outcome) => this.#store.answer(request.id, { ...outcome, via: 'approver' }))
      .catch(() => undefined);
  }
}

/** An {@link ApprovalAnswer} as an outcome: `approved` only when exactly true, `by` defaulting to `defaultBy`. */
function outcomeOf(answer: ApprovalAnswer, defaultBy: string): ApprovalOutcome {
  return {
    approved: answer?.approved === true,
    by: typeof answer?.by === 'string' ? answer.by : defaultBy,
    ...(typeof answer?.reason === 'string' ? { reason: answer.reason } : {}),
    ...(typeof answer?.from === 'string' ? { from: answer.from } : {}),
  };
}

function aborted(): AgentSpacesError {
  return new AgentSpacesError('ABORTED', 'The run was aborted while the call waited for approval');
}

function describe(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return 'unknown error';
  }
}
