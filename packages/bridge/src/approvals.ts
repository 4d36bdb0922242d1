import { AgentSpacesError } from '@agent-spaces/capabilities';
import type { ApprovalAnswer, ApprovalRequest, Approver } from './types.js';

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
}

/**
 * Holds pending approval requests: each is answered by the first of the approver, {@link Approvals.resolve} and the
 * timeout. Without an approver (and without `awaitResolve`) a request is denied at once, `by: 'no-approver'`.
 */
export class ApprovalDesk implements Approvals {
  readonly #approver: Approver | undefined;
  readonly #awaitResolve: boolean;
  readonly #timeoutMs: number;
  readonly #pending = new Map<string, { request: ApprovalRequest; settle: (outcome: ApprovalOutcome) => void }>();

  constructor(options: ApprovalDeskOptions = {}) {
    this.#approver = options.approver;
    this.#awaitResolve = options.awaitResolve ?? false;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
  }

  /** True when a request could be approved at all (an approver, or someone expected to call `resolve`). */
  get canAsk(): boolean {
    return this.#approver !== undefined || this.#awaitResolve;
  }

  pending(): ApprovalRequest[] {
    return [...this.#pending.values()].map((entry) => entry.request);
  }

  resolve(id: string, answer: ApprovalAnswer): boolean {
    const entry = typeof id === 'string' ? this.#pending.get(id) : undefined;
    if (!entry) return false;
    entry.settle({
      approved: answer?.approved === true,
      by: typeof answer?.by === 'string' ? answer.by : 'resolve',
      ...(typeof answer?.reason === 'string' ? { reason: answer.reason } : {}),
    });
    return true;
  }

  /**
   * Asks for `request` (its id must be unique among pending ones) and resolves with the outcome; `onPending` runs once
   * the request can be answered through `resolve`. Rejects with `ABORTED` when `signal` aborts first.
   */
  ask(request: ApprovalRequest, signal: AbortSignal, onPending?: () => void): Promise<ApprovalOutcome> {
    if (!this.canAsk) return Promise.resolve({ approved: false, by: 'no-approver', reason: 'no approver is configured' });
    if (signal.aborted) return Promise.reject(aborted());
    if (this.#pending.has(request.id)) {
      return Promise.reject(new AgentSpacesError('INTERNAL', `Approval request ${request.id} is already pending`));
    }
    return new Promise<ApprovalOutcome>((resolve, reject) => {
      const finish = () => {
        this.#pending.delete(request.id);
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
      };
      const settle = (outcome: ApprovalOutcome) => {
        if (this.#pending.get(request.id)?.settle !== settle) return;
        finish();
        resolve(outcome);
      };
      const onAbort = () => {
        finish();
        reject(aborted());
      };
      const timer = setTimeout(
        () => settle({ approved: false, by: 'timeout', reason: `no answer within ${this.#timeoutMs} ms` }),
        this.#timeoutMs,
      );
      timer.unref?.();
      signal.addEventListener('abort', onAbort, { once: true });
      this.#pending.set(request.id, { request, settle });
      onPending?.();
      if (this.#approver) {
        const approver = this.#approver;
        Promise.resolve()
          .then(() => approver(request))
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
              ),
            (error: unknown) => settle({ approved: false, by: 'approver', reason: `the approver failed: ${describe(error)}` }),
          );
      }
    });
  }
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
