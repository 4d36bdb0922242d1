/** A rate limit's sliding window: at most `requests` calls admitted within any `periodMs`. */
export interface RateWindow {
  /** Names the window in the store: one per capability limit, one per function limit. */
  id: string;
  /** Names the window in errors (`api`, `api.post`). */
  key: string;
  requests: number;
  periodMs: number;
}

/** The answer of {@link RateLimitStore.admit}: admitted, or the window that is full longest and how long until it has room. */
export type Admission = { admitted: true } | { admitted: false; window: RateWindow; waitMs: number };

/** Where the calls admitted under rate limits are counted (per window, by {@link RateWindow.id}). */
export interface RateLimitStore {
  /**
   * Admits a call at `now` when every one of `windows` has room, counting it in all of them; otherwise counts it in
   * none and says which window stays full longest, and for how long. Atomic over the windows.
   */
  admit(windows: readonly RateWindow[], now: number): Promise<Admission>;
  /**
   * Counts calls admitted before the store existed (read back from the audit log) in the window `id`; a window the
   * store counts already is left as it is (several spaces may share one store and read the same log).
   */
  seed(id: string, times: readonly number[]): void;
}

/** The embedded {@link RateLimitStore}: the start times of admitted calls, in memory, as long as the store lives. */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly #admitted = new Map<string, number[]>();

  async admit(windows: readonly RateWindow[], now: number): Promise<Admission> {
    let waitMs = 0;
    let limiting: RateWindow | undefined;
    for (const w of windows) {
      const admitted = this.#times(w.id);
      while (admitted.length > 0 && admitted[0]! <= now - w.periodMs) admitted.shift();
      if (admitted.length >= w.requests) {
        const free = admitted[admitted.length - w.requests]! + w.periodMs - now;
        if (free > waitMs) [waitMs, limiting] = [free, w];
      }
    }
    if (limiting) return { admitted: false, window: limiting, waitMs };
    for (const w of windows) this.#times(w.id).push(now);
    return { admitted: true };
  }

  seed(id: string, times: readonly number[]): void {
    // Once per window: spaces sharing this store (a server's variants of one space) read the same history.
    if (this.#admitted.has(id)) return;
    const admitted = this.#times(id);
    for (const at of times) admitted.push(at);
    admitted.sort((a, b) => a - b);
  }

  #times(id: string): number[] {
    return this.#admitted.get(id) ?? this.#admitted.set(id, []).get(id)!;
  }
}
