import { AgentSpacesError } from '@agent-spaces/capabilities';
import type { ApprovalOutcome, ApprovalRecord, ApprovalRequest, ApprovalStore } from '../types.js';

/** One call waiting for the answer to its request. */
interface Waiter {
  settle(outcome: ApprovalOutcome): void;
}

/**
 * The embedded {@link ApprovalStore}: requests and answers in memory, as long as the store lives. A request is
 * forgotten once its answer was taken (or it was withdrawn), so the store holds only what is still in flight.
 */
export class MemoryApprovalStore implements ApprovalStore {
  readonly #waiting = new Map<string, ApprovalRequest>();
  /** Answers given before their call waited for them (an answer given as the request was announced). */
  readonly #answers = new Map<string, ApprovalOutcome>();
  readonly #waiters = new Map<string, Waiter>();

  async add(request: ApprovalRequest): Promise<boolean> {
    if (this.#waiting.has(request.id) || this.#answers.has(request.id) || this.#waiters.has(request.id)) return false;
    this.#waiting.set(request.id, request);
    return true;
  }

  async pending(): Promise<ApprovalRequest[]> {
    return [...this.#waiting.values()];
  }

  /** The request `id` while it waits (this store forgets a request as it is answered). */
  async get(id: string): Promise<ApprovalRecord | undefined> {
    const request = this.#waiting.get(id);
    return request && { request };
  }

  async answer(id: string, outcome: ApprovalOutcome): Promise<boolean> {
    if (!this.#waiting.delete(id)) return false;
    const waiter = this.#waiters.get(id);
    if (waiter) waiter.settle(outcome);
    else this.#answers.set(id, outcome);
    return true;
  }

  answered(id: string, signal: AbortSignal): Promise<ApprovalOutcome> {
    const given = this.#answers.get(id);
    if (given) {
      this.#answers.delete(id);
      return Promise.resolve(given);
    }
    if (signal.aborted) return Promise.reject(stopped());
    return new Promise<ApprovalOutcome>((resolve, reject) => {
      const onAbort = () => {
        this.#waiters.delete(id);
        reject(stopped());
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiters.set(id, {
        settle: (outcome) => {
          this.#waiters.delete(id);
          signal.removeEventListener('abort', onAbort);
          resolve(outcome);
        },
      });
    });
  }

  async withdraw(id: string): Promise<void> {
    this.#waiting.delete(id);
    this.#answers.delete(id);
  }
}

function stopped(): AgentSpacesError {
  return new AgentSpacesError('ABORTED', 'Stopped waiting for the answer to an approval request');
}
