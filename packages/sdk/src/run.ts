import { randomUUID } from 'node:crypto';
import { isoNow } from '@agent-spaces/bridge';
import type { LogLevel, RunEvent, RunEventInput, WireError } from '@agent-spaces/capabilities';

/** One console line of a run. */
export interface RunLog {
  level: LogLevel;
  message: string;
  timestamp: string;
}

/** Figures of one run. */
export interface RunStats {
  durationMs: number;
  capabilityCalls: number;
}

/** What a run ends with. It never rejects: a failed run is `{ ok: false, error }` with a stable `error.code`. */
export type RunResult =
  | { ok: true; result: unknown; logs: RunLog[]; events: RunEvent[]; stats: RunStats }
  | { ok: false; error: WireError; logs: RunLog[]; events: RunEvent[]; stats: RunStats };

/**
 * A run in progress. `await run` gives its {@link RunResult}; `for await (const event of run)` streams its events live
 * (each iterator starts from the first event, so a late consumer misses nothing).
 */
export class Run implements PromiseLike<RunResult>, AsyncIterable<RunEvent> {
  /** Unique id of this run, carried by every event. */
  readonly id: string;
  readonly #events: RunEvent[] = [];
  readonly #wakers = new Set<() => void>();
  readonly #onEvent: ((event: RunEvent) => void) | undefined;
  #finished = false;
  #result!: Promise<RunResult>;

  /**
   * @internal Created by a space or session; `execute` receives the emitter and produces the result. `id`: a resumed
   * run's own (default: a new one).
   */
  constructor(onEvent: ((event: RunEvent) => void) | undefined, execute: (emit: (event: RunEventInput) => RunEvent) => Promise<RunResult>, id?: string) {
    this.id = id ?? randomUUID();
    this.#onEvent = onEvent;
    this.#result = execute((event) => this.#emit(event)).finally(() => {
      this.#finished = true;
      this.#wake();
    });
  }

  /** Every event emitted so far. */
  get events(): readonly RunEvent[] {
    return this.#events;
  }

  then<A = RunResult, B = never>(
    onFulfilled?: ((value: RunResult) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#result.then(onFulfilled, onRejected);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<RunEvent> {
    let next = 0;
    for (;;) {
      while (next < this.#events.length) yield this.#events[next++]!;
      if (this.#finished) return;
      await new Promise<void>((resolve) => this.#wakers.add(resolve));
    }
  }

  /** Stamps `input` in place (every emitter passes a fresh object; copying the many event shapes costs ~10× more). */
  #emit(input: RunEventInput): RunEvent {
    const event = input as RunEvent;
    event.timestamp = isoNow();
    event.runId = this.id;
    event.seq = this.#events.length;
    this.#events.push(event);
    this.#onEvent?.(event);
    this.#wake();
    return event;
  }

  #wake(): void {
    if (this.#wakers.size === 0) return;
    for (const wake of this.#wakers) wake();
    this.#wakers.clear();
  }
}
