import type { WireError } from '@agent-spaces/capabilities';
import type { ProcessOwner, SandboxProcess } from './sandbox-process.js';

/** How the pool grows and shrinks. */
export interface PoolOptions {
  /** Processes for plain runs at most (busy, idle and starting); more runs wait for one. */
  maxProcesses: number;
  /** An idle process beyond the one warm spare is stopped after this long. */
  idleMs: number;
}

/** Who a run is for; runs without an owner share `undefined`. */
type Owner = string | undefined;

interface Waiter {
  owner: Owner;
  resolve: (process: SandboxProcess | WireError | undefined) => void;
}

const RETIRED: WireError = { code: 'SPACE_CLOSED', message: 'The sandbox process was retired' };

/**
 * The sandbox processes of plain runs: one run per process at a time, so one run's busy code never delays another.
 * Processes are spawned on demand up to {@link PoolOptions.maxProcesses}; one warm spare is kept ready (started in
 * the background as soon as none is idle or on its way), and idle extras retire after {@link PoolOptions.idleMs}.
 * A run waits for a process that is starting or finishing its last run rather than spawning one more.
 *
 * Processes are shared fairly between the runs' owners ({@link share}). Sessions take processes out of the pool for
 * good ({@link take}).
 */
export class ProcessPool implements ProcessOwner {
  readonly #spawn: (owner: ProcessOwner) => Promise<SandboxProcess>;
  readonly #options: PoolOptions;
  /** An owner's share: it gets more processes only when nobody else waits and one is left for others. */
  readonly #share: number;
  readonly #processes = new Set<SandboxProcess>();
  /** Idle processes, the most recently used last. */
  readonly #idle: SandboxProcess[] = [];
  readonly #retire = new Map<SandboxProcess, NodeJS.Timeout>();
  /** Runs waiting for a process, oldest first. */
  readonly #waiters: Waiter[] = [];
  /** Who holds each process given to a run, until it is available again or gone. */
  readonly #holders = new Map<SandboxProcess, Owner>();
  /** How many processes each owner holds. */
  readonly #held = new Map<Owner, number>();
  /** Processes that became available at least once. */
  readonly #started = new WeakSet<SandboxProcess>();
  /** Processes given to a run at least once: never handed to sessions, which would inherit what the run left. */
  readonly #served = new WeakSet<SandboxProcess>();
  /** Spawns waiting for the child's entry file. */
  #spawning = 0;
  #closed = false;

  /** `spawn` starts a process reporting to `owner`. */
  constructor(spawn: (owner: ProcessOwner) => Promise<SandboxProcess>, options: PoolOptions) {
    this.#spawn = spawn;
    this.#options = options;
    this.#share = Math.ceil(options.maxProcesses / 2);
  }

  /** Starts the warm spare in the background. */
  warm(): void {
    this.#ensureSpare();
  }

  /**
   * A process for one run of `owner`, waiting for one if none is free to it; the caller runs on it at once. Resolves
   * `undefined` when `cancel` aborts or the pool closes first, or the error of a process that failed to start.
   *
   * A free process goes to the waiting owner that holds the fewest (the longest waiting first among equals). An owner
   * that holds its share, `ceil(maxProcesses / 2)`, gets another only when no other owner's run waits and one
   * process is still left for another owner: one owner's hung runs never take the whole pool.
   */
  acquire(owner: Owner, cancel: AbortSignal): Promise<SandboxProcess | WireError | undefined> {
    if (this.#closed || cancel.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        owner,
        resolve: (process) => {
          cancel.removeEventListener('abort', onCancel);
          resolve(process);
        },
      };
      const onCancel = (): void => {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        resolve(undefined);
        // The run given up may have been what held back another owner's.
        this.#dispatch();
      };
      cancel.addEventListener('abort', onCancel, { once: true });
      this.#waiters.push(waiter);
      this.#dispatch();
    });
  }

  /**
   * Gives `owner` a process of its own, outside the pool: an idle one that never ran agent code (the warm spare) if
   * there is one, else a new one.
   */
  take(owner: ProcessOwner): void {
    const idle = this.#takeFresh();
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
    for (const waiter of this.#waiters.splice(0)) waiter.resolve(undefined);
    for (const process of this.#processes) process.kill(error);
  }

  /** @internal {@link ProcessOwner}: hands the process to the next waiting run, or keeps it idle. */
  available(process: SandboxProcess): void {
    this.#started.add(process);
    this.#release(process);
    if (this.#closed) return process.kill(RETIRED);
    this.#idle.push(process);
    this.#retire.set(
      process,
      setTimeout(() => {
        if (this.#idle.length > 1 && this.#idle.includes(process)) process.kill(RETIRED);
      }, this.#options.idleMs).unref(),
    );
    this.#dispatch();
  }

  /** @internal {@link ProcessOwner}: forgets the process and replaces it when runs need one. */
  exited(process: SandboxProcess | undefined, error: WireError): void {
    if (process) {
      this.#processes.delete(process);
      this.#forgetIdle(process);
      this.#release(process);
    }
    if (this.#closed) return;
    // A process that never started fails the oldest waiting run instead of being spawned again and again.
    if (!process || !this.#started.has(process)) this.#waiters.shift()?.resolve(error);
    this.#dispatch();
  }

  /** Gives idle processes to the waiting runs next in line, spawns for those still waiting, and keeps a spare. */
  #dispatch(): void {
    for (let next = this.#next(); next && this.#idle.length > 0; next = this.#next()) {
      const process = this.#takeIdle();
      if (!process) break;
      this.#waiters.splice(this.#waiters.indexOf(next), 1);
      this.#served.add(process);
      this.#holders.set(process, next.owner);
      this.#held.set(next.owner, (this.#held.get(next.owner) ?? 0) + 1);
      next.resolve(process);
    }
    const soon = this.#soon();
    let missing = this.#servable(soon + this.#options.maxProcesses - this.#processes.size - this.#spawning) - soon;
    while (missing-- > 0 && this.#room()) this.#add();
    this.#ensureSpare();
  }

  /** The waiting run a free process goes to, if any may have one (see {@link acquire}). */
  #next(): Waiter | undefined {
    return nextWaiter(this.#waiters, this.#held, this.#share, this.#options.maxProcesses);
  }

  /** How many of the waiting runs (at most `limit`) could be given a process now, if there were enough. */
  #servable(limit: number): number {
    const waiting = [...this.#waiters];
    const held = new Map(this.#held);
    let served = 0;
    for (let next = this.#next(); next && served < limit; next = nextWaiter(waiting, held, this.#share, this.#options.maxProcesses)) {
      waiting.splice(waiting.indexOf(next), 1);
      held.set(next.owner, (held.get(next.owner) ?? 0) + 1);
      served++;
    }
    return served;
  }

  /** The process is no longer held by the run's owner. */
  #release(process: SandboxProcess): void {
    if (!this.#holders.has(process)) return;
    const owner = this.#holders.get(process);
    this.#holders.delete(process);
    const count = (this.#held.get(owner) ?? 1) - 1;
    if (count > 0) this.#held.set(owner, count);
    else this.#held.delete(owner);
  }

  #takeIdle(): SandboxProcess | undefined {
    for (let process = this.#idle.pop(); process; process = this.#idle.pop()) {
      clearTimeout(this.#retire.get(process));
      this.#retire.delete(process);
      if (process.state === 'idle') return process;
    }
    return undefined;
  }

  /** An idle process that never ran agent code, taken out of the idle list. */
  #takeFresh(): SandboxProcess | undefined {
    const process = this.#idle.find((each) => each.state === 'idle' && !this.#served.has(each));
    if (process) this.#forgetIdle(process);
    return process;
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

/**
 * Of `waiting` (oldest first), the run the next free process goes to when owners hold `held`: the owner holding the
 * fewest, the longest waiting among equals; an owner at its `share` only when no other owner waits and one of the
 * `max` processes is still left after it.
 */
function nextWaiter(waiting: readonly Waiter[], held: ReadonlyMap<Owner, number>, share: number, max: number): Waiter | undefined {
  const heads = new Map<Owner, Waiter>();
  for (const waiter of waiting) if (!heads.has(waiter.owner)) heads.set(waiter.owner, waiter);
  let total = 0;
  for (const count of held.values()) total += count;
  let best: Waiter | undefined;
  let fewest = Infinity;
  for (const [owner, waiter] of heads) {
    const count = held.get(owner) ?? 0;
    if (count >= share && (heads.size > 1 || total + 1 >= max)) continue;
    // `heads` is in the order of waiting: the longest waiting owner wins a tie.
    if (count < fewest) {
      best = waiter;
      fewest = count;
    }
  }
  return best;
}

function startFailed(error: unknown): WireError {
  return { code: 'INTERNAL', message: `Cannot start a sandbox process: ${error instanceof Error ? error.message : String(error)}` };
}
