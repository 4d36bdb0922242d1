import { AgentSpacesError } from '@agent-spaces/capabilities';
import { MemoryApprovalStore } from './stores/approvals.js';
import type { ApprovalAnswer, ApprovalRequest, ApprovalStore, Approver } from './types.js';

/** Default time a pending approval waits before it counts as denied. */
const DEFAULT_APPROVAL_TIMEOUT_MS = 300_000;

/** Approval requests waiting for an answer (`space.approvals`). */
export interface Approvals {
  /** The requests waiting now, oldest first. */
  pending(): ApprovalRequest[];
  /**
   * Answers the pending request `id`. Returns false when there is none (already answered, timed out, never made):
   * an answer can never apply to another request.
   */
  resolve(id: string, answer: ApprovalAnswer): boolean;
}

/** How a request ended: approved or not, who answered and why. */
export interface ApprovalOutcome {
  approved: boolean;
  by: string;
  reason?: string;
}

/** Options of {@link ApprovalDesk}. */
export interface ApprovalDeskOptions {
  approver?: Approver;
  /** Wait for {@link Approvals.resolve} when there is no approver, instead of denying at once. */
  awaitResolve?: boolean;
  timeoutMs?: number;
  /** Where the requests wait (default: in memory, a {@link MemoryApprovalStore}). */
  store?: ApprovalStore;
}

/**
 * Holds pending approval requests: each is answered by the first of the approver, {@link Approvals.resolve} and the
 * timeout. Without an approver (and without `awaitResolve`) a request is denied at once, `by: 'no-approver'`.
 */
export class ApprovalDesk implements Approvals {
  readonly #approver: Approver | undefined;
  readonly #awaitResolve: boolean;
  readonly #timeoutMs: number;
  readonly #store: ApprovalStore;
  /** How each request this desk waits on is settled, by id: the store keeps the requests, the waiting stays here. */
  readonly #waiting = new Map<string, Settle>();

  constructor(options: ApprovalDeskOptions = {}) {
    this.#approver = options.approver;
    this.#awaitResolve = options.awaitResolve ?? false;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
    this.#store = options.store ?? new MemoryApprovalStore();
  }

  /**
   * True when a request could be approved at all: there is an approver (`approver`, the request's own, or the desk's)
   * or someone is expected to call `resolve`.
   */
  canAsk(approver?: Approver): boolean {
    return approver !== undefined || this.#approver !== undefined || this.#awaitResolve;
  }

  pending(): ApprovalRequest[] {
    return this.#store.pending();
  }

  resolve(id: string, answer: ApprovalAnswer): boolean {
    const settle = typeof id === 'string' ? this.#waiting.get(id) : undefined;
    if (!settle) return false;
    settle(
      {
        approved: answer?.approved === true,
        by: typeof answer?.by === 'string' ? answer.by : 'resolve',
        ...(typeof answer?.reason === 'string' ? { reason: answer.reason } : {}),
      },
      'answered through approvals.resolve()',
    );
    return true;
  }

  /**
   * Asks for `request` (its id must be unique among pending ones) and resolves with the outcome. `options.approver`
   * answers instead of the desk's approver; `options.onPending` runs once the request can be answered through
   * `resolve`. Rejects with `ABORTED` when `signal` aborts first. When anything but the approver settles the request,
   * the approver's `signal` aborts, so it can stop asking.
   */
  ask(request: ApprovalRequest, signal: AbortSignal, options: AskOptions = {}): Promise<ApprovalOutcome> {
    const approver = options.approver ?? this.#approver;
    if (!this.canAsk(approver)) return Promise.resolve({ approved: false, by: 'no-approver', reason: 'no approver is configured' });
    if (signal.aborted) return Promise.reject(aborted());
    if (!this.#store.add(request)) {
      return Promise.reject(new AgentSpacesError('INTERNAL', `Approval request ${request.id} is already pending`));
    }
    return new Promise<ApprovalOutcome>((resolve, reject) => {
      const asking = new AbortController();
      // `withdraw` says how the request ended when the approver did not answer it; its signal then aborts with that reason.
      const finish = (withdraw: string | undefined) => {
        this.#waiting.delete(request.id);
        this.#store.remove(request.id);
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        if (withdraw !== undefined) asking.abort(withdraw);
      };
      const settle: Settle = (outcome, withdraw) => {
        if (this.#waiting.get(request.id) !== settle) return;
        finish(withdraw);
        resolve(outcome);
      };
      const onAbort = () => {
        finish('the call was aborted');
        reject(aborted());
      };
      const late = `no answer within ${this.#timeoutMs} ms`;
      const timer = setTimeout(() => settle({ approved: false, by: 'timeout', reason: late }, late), this.#timeoutMs);
      timer.unref?.();
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiting.set(request.id, settle);
      options.onPending?.();
      if (!approver) return;
      Promise.resolve()
        .then(() => approver(request, { signal: asking.signal }))
        .then(
          (answer) =>
            settle(
              typeof answer === 'object' && answer !== null
                ? {
                    approved: answer.approved === true,
                    by: typeof answer.by === 'string' ? answer.by : 'approver',
                    ...(typeof answer.reason === 'string' ? { reason: answer.reason } : {}),
                  }
                : { approved: answer === true, by: 'approver' },
              undefined,
            ),
          (error: unknown) => settle({ approved: false, by: 'approver', reason: `the approver failed: ${describe(error)}` }, undefined),
        );
    });
  }
}

/** Options of {@link ApprovalDesk.ask}. */
interface AskOptions {
  /** Answers this request instead of the desk's approver. */
  approver?: Approver;
  /** Runs once the request is pending (answerable through `resolve`). */
  onPending?: () => void;
}

/** Settles a pending request; `withdraw` (how it ended) is given unless the approver answered, and aborts its signal. */
type Settle = (outcome: ApprovalOutcome, withdraw: string | undefined) => void;

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
