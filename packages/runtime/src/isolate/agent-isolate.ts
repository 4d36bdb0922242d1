import type ivm from 'isolated-vm';
import { SandboxContext, type ContextTemplate } from './context.js';
import { isolatedVm } from './isolated-vm.js';
import { preludeSources } from './prelude-source.js';


/** How long a run that ended early may keep its isolate busy before the isolate is disposed. */
const SETTLE_WINDOW_MS = 250;
const CPU_SAMPLE_MS = 10;

let preludeCache: ivm.ExternalCopy<ArrayBuffer> | undefined;

/** One isolated-vm isolate for agent code, with the compiled prelude: makes contexts, reports whether it is idle, and can be disposed. */
export class AgentIsolate {
  readonly memoryMb: number;
  readonly #template: ContextTemplate;
  readonly #onDispose = new Set<() => void>();

  private constructor(memoryMb: number, template: ContextTemplate) {
    this.memoryMb = memoryMb;
    this.#template = template;
  }

  /** A new isolate with a heap limit of `memoryMb`. */
  static async create(memoryMb: number): Promise<AgentIsolate> {
    const sources = await preludeSources();
    const isolate = new (isolatedVm().Isolate)({ memoryLimit: memoryMb });
    // V8's code cache for the prelude, shared by every isolate of the process.
    const prelude = isolate.compileScriptSync(sources.prelude, {
      filename: 'agent-spaces:prelude',
      ...(preludeCache ? { cachedData: preludeCache } : { produceCachedData: true }),
    });
    preludeCache ??= (prelude as ivm.Script & ivm.CachedDataResult).cachedData;
    return new AgentIsolate(memoryMb, { isolate, prelude, bridgeSource: sources.bridge });
  }

  /** CPU time the isolate has spent, in nanoseconds. */
  get cpuTime(): bigint {
    return this.#template.isolate.cpuTime;
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
      let lastCpu = this.cpuTime;
      const sample = (): void => {
        if (this.disposed) return resolve('busy');
        const cpu = this.cpuTime;
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
