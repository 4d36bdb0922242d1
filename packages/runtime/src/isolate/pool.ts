import { AgentIsolate } from './agent-isolate.js';
import type { SandboxContext } from './context.js';

/** A pooled isolate whose heap (mostly dead contexts of earlier runs) grew past this is replaced by a fresh one. */
const RECYCLE_HEAP_BYTES = 8 * 1024 * 1024;

/** An isolate lent to one run, with the fresh context prepared for it. */
export interface Lease {
  isolate: AgentIsolate;
  context: SandboxContext;
}

/**
 * The warm isolates of a sandbox: one stays idle with its next context already prepared; concurrent runs get extra
 * isolates, disposed when they come back. Each run has its isolate to itself, so CPU time and disposal are per run.
 */
export class IsolatePool {
  readonly #memoryMb: number;
  readonly #modules: () => ReadonlyMap<string, string>;
  #idle: Promise<Lease | undefined> | undefined;
  readonly #leased = new Set<AgentIsolate>();
  #closed = false;

  /** `modules` gives the current module sources, linked into contexts prepared ahead of runs. */
  constructor(memoryMb: number, modules: () => ReadonlyMap<string, string>) {
    this.#memoryMb = memoryMb;
    this.#modules = modules;
  }

  /** True after {@link close}. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Prepares the idle isolate and its first context in the background. */
  warm(): void {
    if (this.#idle || this.#closed) return;
    this.#idle = AgentIsolate.create(this.#memoryMb)
      .then(async (isolate) => ({ isolate, context: await isolate.newContext(this.#modules()) }))
      .catch(() => undefined);
  }

  /** An isolate and a fresh context (`undefined` once closed); a `memoryMb` other than the pool's gets a one-off isolate. */
  async acquire(memoryMb: number): Promise<Lease | undefined> {
    if (memoryMb === this.#memoryMb && this.#idle) {
      const idle = this.#idle;
      this.#idle = undefined;
      const lease = await idle;
      if (lease && !lease.isolate.disposed) return this.#lend(lease);
      lease?.isolate.dispose();
    }
    if (this.#closed) return undefined;
    const isolate = await AgentIsolate.create(memoryMb);
    return this.#lend({ isolate, context: await isolate.newContext(this.#modules()) });
  }

  /**
   * Takes an isolate back after a run. The isolate may still be busy (a limit ended the run, or work the agent queued
   * runs on after its result), so it is probed and disposed unless it proves idle.
   */
  release(lease: Lease): void {
    const { isolate, context } = lease;
    this.#leased.delete(isolate);
    if (isolate.disposed || this.#closed || isolate.memoryMb !== this.#memoryMb || this.#idle) {
      context.release();
      isolate.dispose();
      return;
    }
    // The clean-up waits for the next turn of the event loop, so the run's outcome reaches its caller first.
    this.#idle = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => {
        context.release();
        const next = isolate.newContext(this.#modules());
        return isolate.settle(next);
      })
      .then(async (ready): Promise<Lease | undefined> => {
        if (!ready) return undefined;
        if (isolate.heapBytes() < RECYCLE_HEAP_BYTES) return { isolate, context: ready.value };
        ready.value.release();
        isolate.dispose();
        const fresh = await AgentIsolate.create(this.#memoryMb);
        return { isolate: fresh, context: await fresh.newContext(this.#modules()) };
      })
      .catch(() => undefined);
  }

  /** Disposes every isolate, including those lent to runs still going (they end at once). */
  close(): void {
    this.#closed = true;
    void this.#idle?.then((lease) => lease?.isolate.dispose());
    this.#idle = undefined;
    for (const isolate of this.#leased) isolate.dispose();
    this.#leased.clear();
  }

  #lend(lease: Lease): Lease | undefined {
    if (this.#closed) {
      lease.isolate.dispose();
      return undefined;
    }
    this.#leased.add(lease.isolate);
    return lease;
  }
}
