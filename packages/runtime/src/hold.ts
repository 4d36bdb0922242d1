/**
 * Holds a run's wall clock while it waits for a person (a call pending approval): the caller holds and releases it,
 * the run's time limit does not count the time in between (docs/runtime.md, "Time spent waiting for a person").
 * Holds nest: the clock runs again once every hold is released. CPU time is not held: agent code waiting on a call
 * uses none.
 */
export class RunHold {
  #depth = 0;
  readonly #listeners = new Set<(held: boolean) => void>();

  /** True while at least one hold is on. */
  get held(): boolean {
    return this.#depth > 0;
  }

  /** Holds the clock (the first hold stops it). */
  hold(): void {
    if (this.#depth++ === 0) this.#tell(true);
  }

  /** Releases one hold (the last one starts the clock again); nothing when none is on. */
  release(): void {
    if (this.#depth === 0) return;
    if (--this.#depth === 0) this.#tell(false);
  }

  /** Hears each change (`true`: held); returns how to stop hearing. */
  listen(listener: (held: boolean) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #tell(held: boolean): void {
    for (const listener of this.#listeners) listener(held);
  }
}

/** How long a run's clock has been held, for the clocks that enforce its time limit. */
export class HeldTime {
  #total = 0;
  #since: number | undefined;
  readonly #stop: () => void;

  /** Follows `hold` (none: never held); `onChange` hears each change after the time is counted. */
  constructor(hold: RunHold | undefined, onChange: (held: boolean) => void) {
    if (hold?.held) this.#since = performance.now();
    this.#stop =
      hold?.listen((held) => {
        const now = performance.now();
        if (held) this.#since = now;
        else if (this.#since !== undefined) {
          this.#total += now - this.#since;
          this.#since = undefined;
        }
        onChange(held);
      }) ?? (() => undefined);
  }

  /** True while held. */
  get held(): boolean {
    return this.#since !== undefined;
  }

  /** Milliseconds held so far (the current hold included). */
  ms(now = performance.now()): number {
    return this.#total + (this.#since === undefined ? 0 : now - this.#since);
  }

  /** Stops following the hold. */
  stop(): void {
    this.#stop();
  }
}
