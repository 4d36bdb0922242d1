import type { WireError } from '@agent-spaces/capabilities';
import type { ProcessOwner, SandboxProcess } from './sandbox-process.js';

/** How the pool grows and shrinks. */
export interface PoolOptions {
  /** Processes for plain runs at most (busy, idle and starting); more runs wait for one. */
  maxProcesses: number;
  /** An idle process beyond the one warm spare is stopped after this long. */
  idleMs: number;
}

type Waiter = (process: SandboxProcess | WireError | undefined) => void;

const RETIRED: WireError = { code: 'SPACE_CLOSED', message: 'The sandbox process was retired' };

/**
 * The sandbox processes of plain runs: one run per process at a time, so one run's busy code never delays another.
 * Processes are spawned on demand up to {@link PoolOptions.maxProcesses}; one warm spare is kept ready (started in
 * the background as soon as none is idle or on its way), and idle extras retire after {@link PoolOptions.idleMs}.
 * A run waits for a process that is starting or finishing its last run rather than spawning one more. A session
 * takes a process out of the pool for good ({@link take}).
 */
export class ProcessPool implements ProcessOwner {
  readonly #spawn: (owner: ProcessOwner) => Promise<SandboxProcess>;
  readonly #options: PoolOptions;
  readonly #processes = new Set<SandboxProcess>();
  /** Idle processes, the most recently used last. */
  readonly #idle: SandboxProcess[] = [];
  readonly #retire = new Map<SandboxProcess, NodeJS.Timeout>();
  readonly #waiters: Waiter[] = [];
  /** Processes that became available at least once. */
  readonly #started = new WeakSet<SandboxProcess>();
  /** Spawns waiting for the child's entry file. */
  #spawning = 0;
  #closed = false;

  /** `spawn` starts a process reporting to `owner`. */
  constructor(spawn: (owner: ProcessOwner) => Promise<SandboxProcess>, options: PoolOptions) {
    this.#spawn = spawn;
    this.#options = options;
  }

  /** Starts the warm spare in the background. */
  warm(): void {
    this.#ensureSpare();
  }

  /**
   * An idle process for one run, waiting for one if none is; the caller runs on it at once. Resolves `undefined`
   * when `cancel` aborts or the pool closes first, or the error of a process that failed to start.
   */
  acquire(cancel: AbortSignal): Promise<SandboxProcess | WireError | undefined> {
    if (this.#closed || cancel.aborted) return Promise.resolve(undefined);
    const idle = this.#takeIdle();
    if (idle) {
      this.#ensureSpare();
      return Promise.resolve(idle);
    }
    return new Promise((resolve) => {
      const waiter: Waiter = (process) => {
        cancel.removeEventListener('abort', onCancel);
        resolve(process);
      };
      const onCancel = (): void => {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        resolve(undefined);
      };
      cancel.addEventListener('abort', onCancel, { once: true });
      this.#waiters.push(waiter);
      this.#fill();
    });
  }

  /** Gives `owner` a process of its own, outside the pool: the idle spare if there is one, else a new one. */
  take(owner: ProcessOwner): void {
    const idle = this.#takeIdle();
    if (!idle) {
      void this.#spawn(owner).catch((error: unknown) => owner.exited(undefined, startFailed(error)));
      return;
    }
    this.#processes.delete(idle);
    idle.owner = owner;
    this.#ensureSpare();
    queueMicrotask(() => (idle.state === 'idle' ? owner.available(idle) : undefined));
  }

  /** Stops every process (runs going on end with `error`); waiting runs get `undefined`. */
  close(error: WireError): void {
    this.#closed = true;
    for (const waiter of this.#waiters.splice(0)) waiter(undefined);
    for (const process of this.#processes) process.kill(error);
  }

  /** @internal {@link ProcessOwner}: hands the process to the oldest waiting run, or keeps it idle. */
  available(process: SandboxProcess): void {
    this.#started.add(process);
    if (this.#closed) return process.kill(RETIRED);
    const waiter = this.#waiters.shift();
    if (waiter) {
      waiter(process);
      return this.#ensureSpare();
    }
    this.#idle.push(process);
    this.#retire.set(
      process,
      setTimeout(() => {
        if (this.#idle.length > 1 && this.#idle.includes(process)) process.kill(RETIRED);
      }, this.#options.idleMs).unref(),
    );
  }

  /** @internal {@link ProcessOwner}: forgets the process and replaces it when runs need one. */
  exited(process: SandboxProcess | undefined, error: WireError): void {
    if (process) {
      this.#processes.delete(process);
      this.#forgetIdle(process);
    }
    if (this.#closed) return;
    // A process that never started fails the oldest waiting run instead of being spawned again and again.
    if (!process || !this.#started.has(process)) this.#waiters.shift()?.(error);
    else this.#ensureSpare();
    this.#fill();
  }

  #takeIdle(): SandboxProcess | undefined {
    for (let process = this.#idle.pop(); process; process = this.#idle.pop()) {
      clearTimeout(this.#retire.get(process));
      this.#retire.delete(process);
      if (process.state === 'idle') return process;
    }
    return undefined;
  }

  #forgetIdle(process: SandboxProcess): void {
    const index = this.#idle.indexOf(process);
    if (index >= 0) this.#idle.splice(index, 1);
    clearTimeout(this.#retire.get(process));
    this.#retire.delete(process);
  }

  /** Processes that will be available soon without being asked: starting, or finishing a run. */
  #soon(): number {
    let soon = this.#spawning;
    for (const process of this.#processes) if (process.state === 'starting' || process.state === 'settling') soon++;
    return soon;
  }

  /** Spawns for the waiting runs that no process on its way will serve. */
  #fill(): void {
    let missing = this.#waiters.length - this.#soon();
    while (missing-- > 0 && this.#room()) this.#add();
  }

  #ensureSpare(): void {
    if (this.#idle.length === 0 && this.#soon() === 0 && this.#room()) this.#add();
  }

  #room(): boolean {
    return !this.#closed && this.#processes.size + this.#spawning < this.#options.maxProcesses;
  }

  #add(): void {
    this.#spawning++;
    this.#spawn(this).then(
      (process) => {
        this.#spawning--;
        if (this.#closed) process.kill(RETIRED);
        else this.#processes.add(process);
      },
      (error: unknown) => {
        this.#spawning--;
        this.exited(undefined, startFailed(error));
      },
    );
  }
}

function startFailed(error: unknown): WireError {
  return { code: 'INTERNAL', message: `Cannot start a sandbox process: ${error instanceof Error ? error.message : String(error)}` };
}
