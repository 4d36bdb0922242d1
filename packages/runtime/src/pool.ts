import { createRequire } from 'node:module';
import type ivm from 'isolated-vm';
import { preludeSources } from './prelude-source.js';
import { SandboxContext, type ContextTemplate } from './sandbox/context.js';

// Loaded with require: importing a CommonJS package from ESM starts Node's CJS export lexer (~7 MiB of RSS).
const { Isolate } = createRequire(import.meta.url)('isolated-vm') as typeof ivm;

/** A pooled isolate whose heap (mostly dead contexts of earlier runs) grew past this is replaced by a fresh one. */
const RECYCLE_HEAP_BYTES = 8 * 1024 * 1024;
/** How long a run that ended early may keep its isolate busy before the isolate is disposed. */
const SETTLE_WINDOW_MS = 250;
const CPU_SAMPLE_MS = 10;

let preludeCache: ivm.ExternalCopy<ArrayBuffer> | undefined;

/** One isolate with the compiled prelude: makes contexts, reports whether it is idle, and can be disposed. */
export class IsolateHost {
  readonly memoryMb: number;
  readonly #template: ContextTemplate;
  readonly #onDispose = new Set<() => void>();

  private constructor(memoryMb: number, template: ContextTemplate) {
    this.memoryMb = memoryMb;
    this.#template = template;
  }

  /** A new isolate with a heap limit of `memoryMb`. */
  static async create(memoryMb: number): Promise<IsolateHost> {
    const sources = await preludeSources();
    const isolate = new Isolate({ memoryLimit: memoryMb });
    // V8's code cache for the prelude, shared by every isolate of the process.
    const prelude = isolate.compileScriptSync(sources.prelude, {
      filename: 'agent-spaces:prelude',
      ...(preludeCache ? { cachedData: preludeCache } : { produceCachedData: true }),
    });
    preludeCache ??= (prelude as ivm.Script & ivm.CachedDataResult).cachedData;
    return new IsolateHost(memoryMb, { isolate, prelude, bridgeSource: sources.bridge });
  }

  /** The isolate (for CPU time and disposal checks). */
  get isolate(): ivm.Isolate {
    return this.#template.isolate;
  }

  /** True once disposed (by {@link dispose} or by isolated-vm when the heap limit was hit). */
  get disposed(): boolean {
    return this.#template.isolate.isDisposed;
  }

  /** A fresh context with the prelude and bridge set up and `modules` linked. */
  newContext(modules: ReadonlyMap<string, string>): Promise<SandboxContext> {
    return SandboxContext.create(this.#template, modules);
  }

  /**
   * Waits until `probe` (work queued on this isolate) settles, which proves the isolate idle, or until the isolate
   * is seen burning CPU or the settle window passes: then disposes it. Resolves with the probe's value when the
   * isolate is usable, `undefined` when it was disposed.
   */
  async settle<T>(probe: Promise<T>): Promise<{ value: T } | undefined> {
    const settled = probe.then(
      (value) => ({ value }),
      () => undefined,
    );
    if (this.disposed) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const busy = new Promise<'busy'>((resolve) => {
      let waited = 0;
      let last = performance.now();
      let lastCpu = this.isolate.cpuTime;
      const sample = (): void => {
        if (this.disposed) return resolve('busy');
        const cpu = this.isolate.cpuTime;
        const burning = Number(cpu - lastCpu) / 1e6 >= CPU_SAMPLE_MS * 0.5;
        lastCpu = cpu;
        // A sample that comes late means this process was stalled (a loaded machine, a long task of the host): the
        // probe's answer may be waiting behind this timer, so that time does not count against the window.
        const now = performance.now();
        waited += Math.min(now - last, CPU_SAMPLE_MS * 2);
        last = now;
        if (burning || waited >= SETTLE_WINDOW_MS) resolve('busy');
        else timer = setTimeout(sample, CPU_SAMPLE_MS);
      };
      timer = setTimeout(sample, CPU_SAMPLE_MS);
    });
    const first = await Promise.race([settled, busy]);
    clearTimeout(timer);
    if (first === 'busy' || first === undefined) {
      this.dispose();
      return undefined;
    }
    return first;
  }

  /** Bytes of the isolate's heap, dead objects included. */
  heapBytes(): number {
    return this.#template.isolate.getHeapStatisticsSync().total_heap_size;
  }

  /** Calls `listener` when {@link dispose} disposes the isolate; returns a function that unsubscribes it. */
  onDispose(listener: () => void): () => void {
    this.#onDispose.add(listener);
    return () => this.#onDispose.delete(listener);
  }

  /** Disposes the isolate; everything running in it stops at once. */
  dispose(): void {
    if (this.disposed) return;
    this.#template.isolate.dispose();
    for (const listener of this.#onDispose) listener();
    this.#onDispose.clear();
  }
}

/** An isolate lent to one run, with the fresh context prepared for it. */
export interface Lease {
  host: IsolateHost;
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
  readonly #leased = new Set<IsolateHost>();
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
    this.#idle = IsolateHost.create(this.#memoryMb)
      .then(async (host) => ({ host, context: await host.newContext(this.#modules()) }))
      .catch(() => undefined);
  }

  /** An isolate and a fresh context (`undefined` once closed); a `memoryMb` other than the pool's gets a one-off isolate. */
  async acquire(memoryMb: number): Promise<Lease | undefined> {
    if (memoryMb === this.#memoryMb && this.#idle) {
      const idle = this.#idle;
      this.#idle = undefined;
      const lease = await idle;
      if (lease && !lease.host.disposed) return this.#lend(lease);
      lease?.host.dispose();
    }
    if (this.#closed) return undefined;
    const host = await IsolateHost.create(memoryMb);
    return this.#lend({ host, context: await host.newContext(this.#modules()) });
  }

  /**
   * Takes an isolate back after a run. The isolate may still be busy (a limit ended the run, or work the agent queued
   * runs on after its result), so it is probed and disposed unless it proves idle.
   */
  release(lease: Lease): void {
    const { host, context } = lease;
    this.#leased.delete(host);
    if (host.disposed || this.#closed || host.memoryMb !== this.#memoryMb || this.#idle) {
      context.release();
      host.dispose();
      return;
    }
    // The clean-up waits for the next turn of the event loop, so the run's outcome reaches its caller first.
    this.#idle = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => {
        context.release();
        const next = host.newContext(this.#modules());
        return host.settle(next);
      })
      .then(async (ready): Promise<Lease | undefined> => {
        if (!ready) return undefined;
        if (host.heapBytes() < RECYCLE_HEAP_BYTES) return { host, context: ready.value };
        ready.value.release();
        host.dispose();
        const fresh = await IsolateHost.create(this.#memoryMb);
        return { host: fresh, context: await fresh.newContext(this.#modules()) };
      })
      .catch(() => undefined);
  }

  /** Disposes every isolate, including those lent to runs still going (they end at once). */
  close(): void {
    this.#closed = true;
    void this.#idle?.then((lease) => lease?.host.dispose());
    this.#idle = undefined;
    for (const host of this.#leased) host.dispose();
    this.#leased.clear();
  }

  #lend(lease: Lease): Lease | undefined {
    if (this.#closed) {
      lease.host.dispose();
      return undefined;
    }
    this.#leased.add(lease.host);
    return lease;
  }
}
