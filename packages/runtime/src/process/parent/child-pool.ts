import type { WireError } from '@agent-spaces/capabilities';
import type { ChildHolder, SupervisedChild } from './supervised-child.js';

/** How the pool grows and shrinks. */
export interface PoolOptions {
  /** Processes for plain runs at most (busy, idle and starting); more runs wait for one. */
  maxProcesses: number;
  /** An idle child beyond the one warm spare is stopped after this long. */
  idleMs: number;
  /**
   * Keep a warm spare of the pool's own, started as soon as none is idle or on its way (the host has no warm
   * processes); else the pool takes one process when {@link ChildPool.warm}ed, and more only when runs need them.
   */
  keepSpare: boolean;
}

/** Who a run is for; runs without an owner share `undefined`. */
type Owner = string | undefined;

interface Waiter {
  owner: Owner;
  resolve: (child: SupervisedChild | WireError | undefined) => void;
}

/**
 * The sandbox processes of plain runs, the parent's side: one run per child at a time, so one run's busy code never delays another.
 * Processes are spawned on demand up to {@link PoolOptions.maxProcesses}; one warm spare is kept ready (started in
 * the background as soon as none is idle or on its way), and idle extras retire after {@link PoolOptions.idleMs}.
 * A run waits for a child that is starting or finishing its last run rather than spawning one more.
 *
 * Processes are shared fairly between the runs' owners ({@link share}). Sessions take children out of the pool for
 * good ({@link take}).
 */
export class ChildPool implements ChildHolder {
  readonly #spawn: (holder: ChildHolder) => Promise<SupervisedChild>;
  readonly #give: (child: SupervisedChild) => void;
  readonly #options: PoolOptions;
  /** An owner's share: it gets more children only when nobody else waits and one is left for others. */
  readonly #share: number;
  readonly #children = new Set<SupervisedChild>();
  /** Idle children, the most recently used last. */
  readonly #idle: SupervisedChild[] = [];
  readonly #retire = new Map<SupervisedChild, NodeJS.Timeout>();
  /** Runs waiting for a child, oldest first. */
  readonly #waiters: Waiter[] = [];
  /** Who holds each child given to a run, until it is available again or gone. */
  readonly #heldBy = new Map<SupervisedChild, Owner>();
  /** How many children each owner holds. */
  readonly #held = new Map<Owner, number>();
  /** Processes that became available at least once. */
  readonly #started = new WeakSet<SupervisedChild>();
  /** Processes given to a run at least once: never handed to sessions, which would inherit what the run left. */
  readonly #served = new WeakSet<SupervisedChild>();
  /** Spawns waiting for the child's entry file. */
  #spawning = 0;
  #closed = false;

  /**
   * `spawn` gives a child reporting to `holder` (a new one, or a warm one of the host's); `give` takes back a child the
   * pool no longer needs (no run going on): the host's warm processes keep it or stop it.
   */
  constructor(spawn: (holder: ChildHolder) => Promise<SupervisedChild>, options: PoolOptions, give: (child: SupervisedChild) => void) {
    this.#spawn = spawn;
    this.#give = give;
    this.#options = options;
    this.#share = Math.ceil(options.maxProcesses / 2);
  }

  /** Starts the warm spare (or takes the pool's first process) in the background. */
  warm(): void {
    if (this.#children.size + this.#spawning === 0 && this.#room()) this.#add();
  }

  /**
   * A child for one run of `owner`, waiting for one if none is free to it; the caller runs on it at once. Resolves
   * `undefined` when `cancel` aborts or the pool closes first, or the error of a child that failed to start.
   *
   * A free child goes to the waiting owner that holds the fewest (the longest waiting first among equals). An owner
   * that holds its share, `ceil(maxProcesses / 2)`, gets another only when no other owner's run waits and one
   * child is still left for another owner: one owner's hung runs never take the whole pool.
   */
  acquire(owner: Owner, cancel: AbortSignal): Promise<SupervisedChild | WireError | undefined> {
    if (this.#closed || cancel.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        owner,
        resolve: (child) => {
          cancel.removeEventListener('abort', onCancel);
          resolve(child);
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
   * Gives `holder` (a session process) a child of its own, outside the pool: an idle one that never ran agent code
   * (the warm spare) if there is one, else a new one.
   */
  take(holder: ChildHolder): void {
    const idle = this.#takeFresh();
    if (!idle) {
      // A warm process of the host's is ready at once; a new one says so when it has started.
      void this.#spawn(holder).then(
        (child) => (child.state === 'idle' ? holder.available(child) : undefined),
        (error: unknown) => holder.exited(undefined, startFailed(error)),
      );
      return;
    }
    this.#children.delete(idle);
    idle.holder = holder;
    this.#ensureSpare();
    queueMicrotask(() => (idle.state === 'idle' ? holder.available(idle) : undefined));
  }

  /** Gives back every child with no run going on and stops the others (their runs end with `error`); waiting runs get `undefined`. */
  close(error: WireError): void {
    this.#closed = true;
    for (const waiter of this.#waiters.splice(0)) waiter.resolve(undefined);
    for (const child of [...this.#children]) {
      if (child.reusable) this.#giveBack(child);
      else child.kill(error);
    }
  }

  /** @internal {@link ChildHolder}: hands the child to the next waiting run, or keeps it idle. */
  available(child: SupervisedChild): void {
    this.#started.add(child);
    this.#release(child);
    if (this.#closed) return this.#giveBack(child);
    this.#idle.push(child);
    this.#retire.set(
      child,
      setTimeout(() => {
        if (this.#idle.length > 1 && this.#idle.includes(child)) this.#giveBack(child);
      }, this.#options.idleMs).unref(),
    );
    this.#dispatch();
  }

  /** @internal {@link ChildHolder}: forgets the child and replaces it when runs need one. */
  exited(child: SupervisedChild | undefined, error: WireError): void {
    if (child) {
      this.#children.delete(child);
      this.#forgetIdle(child);
      this.#release(child);
    }
    if (this.#closed) return;
    // A child that never started fails the oldest waiting run instead of being spawned again and again.
    if (!child || !this.#started.has(child)) this.#waiters.shift()?.resolve(error);
    this.#dispatch();
  }

  /** Gives idle children to the waiting runs next in line, spawns for those still waiting, and keeps a spare. */
  #dispatch(): void {
    for (let next = this.#next(); next && this.#idle.length > 0; next = this.#next()) {
      const child = this.#takeIdle();
      if (!child) break;
      this.#waiters.splice(this.#waiters.indexOf(next), 1);
      this.#served.add(child);
      this.#heldBy.set(child, next.owner);
      this.#held.set(next.owner, (this.#held.get(next.owner) ?? 0) + 1);
      next.resolve(child);
    }
    const soon = this.#soon();
    let missing = this.#servable(soon + this.#options.maxProcesses - this.#children.size - this.#spawning) - soon;
    while (missing-- > 0 && this.#room()) this.#add();
    this.#ensureSpare();
  }

  /** The waiting run a free child goes to, if any may have one (see {@link acquire}). */
  #next(): Waiter | undefined {
    return nextWaiter(this.#waiters, this.#held, this.#share, this.#options.maxProcesses);
  }

  /** How many of the waiting runs (at most `limit`) could be given a child now, if there were enough. */
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

  /** The child is no longer held by the run's owner. */
  #release(child: SupervisedChild): void {
    if (!this.#heldBy.has(child)) return;
    const owner = this.#heldBy.get(child);
    this.#heldBy.delete(child);
    const count = (this.#held.get(owner) ?? 1) - 1;
    if (count > 0) this.#held.set(owner, count);
    else this.#held.delete(owner);
  }

  #takeIdle(): SupervisedChild | undefined {
    for (let child = this.#idle.pop(); child; child = this.#idle.pop()) {
      clearTimeout(this.#retire.get(child));
      this.#retire.delete(child);
      if (child.state === 'idle') return child;
    }
    return undefined;
  }

  /** An idle child that never ran agent code, taken out of the idle list. */
  #takeFresh(): SupervisedChild | undefined {
    const child = this.#idle.find((each) => each.state === 'idle' && !this.#served.has(each));
    if (child) this.#forgetIdle(child);
    return child;
  }

  /** Forgets `child` and hands it to `give`. */
  #giveBack(child: SupervisedChild): void {
    this.#children.delete(child);
    this.#forgetIdle(child);
    this.#release(child);
    this.#give(child);
  }

  #forgetIdle(child: SupervisedChild): void {
    const index = this.#idle.indexOf(child);
    if (index >= 0) this.#idle.splice(index, 1);
    clearTimeout(this.#retire.get(child));
    this.#retire.delete(child);
  }

  /** Processes that will be available soon without being asked: starting, or finishing a run. */
  #soon(): number {
    let soon = this.#spawning;
    for (const child of this.#children) if (child.state === 'starting' || child.state === 'settling') soon++;
    return soon;
  }

  #ensureSpare(): void {
    if (this.#options.keepSpare && this.#idle.length === 0 && this.#soon() === 0 && this.#room()) this.#add();
  }

  #room(): boolean {
    return !this.#closed && this.#children.size + this.#spawning < this.#options.maxProcesses;
  }

  #add(): void {
    this.#spawning++;
    this.#spawn(this).then(
      (child) => {
        this.#spawning--;
        if (this.#closed) return this.#give(child);
        this.#children.add(child);
        // A warm process of the host's is ready at once; a new one says so when it has started.
        if (child.state === 'idle') this.available(child);
      },
      (error: unknown) => {
        this.#spawning--;
        this.exited(undefined, startFailed(error));
      },
    );
  }
}

/**
 * Of `waiting` (oldest first), the run the next free child goes to when owners hold `held`: the owner holding the
 * fewest, the longest waiting among equals; an owner at its `share` only when no other owner waits and one of the
 * `max` children is still left after it.
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
  return { code: 'INTERNAL', message: `Cannot start a sandbox child: ${error instanceof Error ? error.message : String(error)}` };
}
