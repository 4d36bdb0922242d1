/**
 * Verified tokens by the SHA-256 of the token, each until its `exp`: a least-recently-used map of at most `capacity`
 * entries. A hit costs a hash and a map lookup; an entry is never returned at or past its expiry.
 */
export class VerifiedTokens<T> {
  readonly #entries = new Map<string, { value: T; expiresAtMs: number }>();
  readonly #capacity: number;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** The value kept for `key`, unless it expired (then it is dropped). */
  get(key: string, nowMs = Date.now()): T | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    if (nowMs >= entry.expiresAtMs) return undefined;
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` for `key` until `expiresAtMs`, dropping the least recently used entry past the capacity. */
  set(key: string, value: T, expiresAtMs: number): void {
    this.#entries.delete(key);
    this.#entries.set(key, { value, expiresAtMs });
    if (this.#entries.size > this.#capacity) this.#entries.delete(this.#entries.keys().next().value!);
  }

  /** Entries kept now (expired ones included until they are looked up or pushed out). */
  get size(): number {
    return this.#entries.size;
  }
}
