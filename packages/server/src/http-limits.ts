import type { SharedCounters } from '@agent-spaces/bridge/shared';
import type { RateLimitSettings } from './config.js';

/** Counts the HTTP requests of each client key in fixed windows (the front door's rate limit). */
export interface RequestLimiter {
  /** Counts one request of `key`: undefined when allowed, else the milliseconds until its window resets. */
  take(key: string): Promise<number | undefined>;
}

/** The front door's limiter: in Redis when the server counts there (one budget across replicas), else in memory; none when off. */
export function requestLimiter(settings: RateLimitSettings | false, counters: SharedCounters | undefined): RequestLimiter | undefined {
  if (settings === false) return undefined;
  if (!counters) return new MemoryRequestLimiter(settings);
  const windowMs = settings.windowSeconds * 1000;
  // Rejects STORE_UNAVAILABLE when Redis does not answer: the request is refused (503), not let through uncounted.
  return { take: (key) => counters.take(`http:${key}`, settings.requests, windowMs) };
}

/** Fixed-window request counts per client key, in this process's memory. */
class MemoryRequestLimiter implements RequestLimiter {
  readonly #windows = new Map<string, { start: number; count: number }>();
  readonly #limit: number;
  readonly #windowMs: number;

  constructor(settings: RateLimitSettings) {
    this.#limit = settings.requests;
    this.#windowMs = settings.windowSeconds * 1000;
  }

  async take(key: string): Promise<number | undefined> {
    const now = Date.now();
    if (this.#windows.size > 10_000) {
      for (const [k, w] of this.#windows) if (now - w.start >= this.#windowMs) this.#windows.delete(k);
    }
    let window = this.#windows.get(key);
    if (!window || now - window.start >= this.#windowMs) {
      window = { start: now, count: 0 };
      this.#windows.set(key, window);
    }
    if (window.count >= this.#limit) return window.start + this.#windowMs - now;
    window.count++;
    return undefined;
  }
}
