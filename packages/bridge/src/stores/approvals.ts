import type { ApprovalRequest, ApprovalStore } from '../types.js';

/** The embedded {@link ApprovalStore}: the waiting requests in memory, as long as the store lives. */
export class MemoryApprovalStore implements ApprovalStore {
  readonly #waiting = new Map<string, ApprovalRequest>();

  add(request: ApprovalRequest): boolean {
    if (this.#waiting.has(request.id)) return false;
    this.#waiting.set(request.id, request);
    return true;
  }

  pending(): ApprovalRequest[] {
    return [...this.#waiting.values()];
  }

  remove(id: string): void {
    this.#waiting.delete(id);
  }
}
