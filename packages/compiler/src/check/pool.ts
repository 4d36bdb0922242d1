import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { AgentSpacesError, readWireError, type WireError } from '@agent-spaces/capabilities';
import type { CheckRequest, CheckResult } from './session.js';
import { checkWorkerEntry } from './worker-entry.js';
import type { CheckJob, FromWorker } from './worker-protocol.js';

/** Most scripts of one owner checked in one program by one job. */
const MAX_BATCH = 16;
/** The owner of a job that readies a new worker: no client's name. */
const READYING = '\0readying';
/** The key of no declarations, for a worker readied before they are known ({@link CheckPool.preload}); never a hash. */
const LIBRARIES_ONLY = 'libraries';
/** Most checks one owner may have waiting; one more is refused at once (each holds a script of up to 256 KiB). */
const MAX_QUEUED_PER_OWNER = 32;
/** Longest a worker may take to start and take in a job's declarations before the job fails. */
const READY_MS = 60_000;
/**
 * How long after a job a cold slot waits before a worker is readied in it: a one-shot process (a CLI run) is gone by
 * then, and does not load TypeScript a second time beside the script it runs.
 */
const READY_ANOTHER_MS = 1_000;

/** One script waiting to be checked, with whom it is for and what it may cost. */
export interface PendingCheck {
  /** The typechecker that asked: {@link CheckPool.cancel} ends its checks. */
  source: object;
  owner: string;
  /** Content hash of `declarations`. */
  key: string;
  declarations: ReadonlyMap<string, string>;
  request: CheckRequest;
  timeoutMs: number;
  /** Checked alone: it was in a batch that went over its budget. */
  solo?: boolean;
  resolve(result: CheckResult): void;
  reject(error: AgentSpacesError): void;
}

interface Batch {
  job: number;
  owner: string;
  key: string;
  declarations: ReadonlyMap<string, string>;
  /** None for a job that only readies a new worker for the declarations. */
  items: PendingCheck[];
  /** Until the worker starts on the job, the watchdog of its readying; then its time budget. */
  timer?: NodeJS.Timeout;
}

interface Slot {
  worker?: Worker;
  batch?: Batch;
}

/**
 * Typecheck workers shared by every typechecker of the process with the same heap budget: checks run off the event
 * loop, each job under a time budget (the worker is terminated past it) and a heap budget (the worker's
 * `maxOldGenerationSizeMb`). A free worker goes to the longest unserved owner that runs no job now, so one owner's
 * queue of heavy checks never starves another's light one; a job holds scripts of one owner only, and a job over
 * budget is checked again script by script, so only the script over budget fails. Workers never keep the process
 * alive; the checks waiting for them do.
 */
export class CheckPool {
  readonly #memoryMb: number;
  readonly #slots: Slot[];
  /** Waiting checks by owner; the map's order is the rotation (an owner served goes to the back). */
  readonly #queues = new Map<string, PendingCheck[]>();
  #jobs = 0;
  // The declarations of the latest job, for the one worker readied after it ({@link #readyAnother}): one timer at a time.
  #readyFor: Batch | undefined;

  constructor(memoryMb: number, workers: number) {
    this.#memoryMb = memoryMb;
    this.#slots = Array.from({ length: workers }, () => ({}));
  }

  /**
   * Queues a check; it is answered through its `resolve` / `reject`. An owner with {@link MAX_QUEUED_PER_OWNER} checks
   * waiting gets `TYPECHECK_LIMIT` (`data.budget: "queue"`) at once: one client cannot fill the host's memory with them.
   */
  submit(check: PendingCheck): void {
    const queue = this.#queues.get(check.owner);
    if (queue && queue.length >= MAX_QUEUED_PER_OWNER) {
      const message = `${MAX_QUEUED_PER_OWNER} checks of this client are waiting already: wait for their answers before sending more`;
      return check.reject(new AgentSpacesError('TYPECHECK_LIMIT', message, { budget: 'queue', limit: MAX_QUEUED_PER_OWNER }));
    }
    if (queue) queue.push(check);
    else this.#queues.set(check.owner, [check]);
    this.#dispatch();
  }

  /**
   * Starts a worker and hands it `declarations` (keyed `key`) ahead of the first check, when no worker runs yet and
   * one is free: TypeScript then loads while the caller does other work. True when it started one.
   */
  prepare(key: string, declarations: ReadonlyMap<string, string>): boolean {
    if (this.#slots.some((slot) => slot.worker || slot.batch)) return false;
    this.#start(this.#slots[0]!, { job: ++this.#jobs, owner: READYING, key, declarations, items: [] }, true);
    return true;
  }

  /**
   * Starts a worker that loads TypeScript and parses and binds the lib files, when no worker runs yet: for a process
   * that will check soon but does not know its declarations yet. Checks wait for it, then use it; no second worker is
   * readied after it ({@link #readyAnother} waits for a check). True when it started one.
   */
  preload(): boolean {
    return this.prepare(LIBRARIES_ONLY, new Map());
  }

  #dispatch(): void {
    // While a worker is being readied, checks wait for it rather than start another one from nothing.
    const readying = this.#slots.some((slot) => slot.batch?.owner === READYING);
    for (const slot of this.#slots) {
      if (slot.batch || (readying && !slot.worker)) continue;
      const batch = this.#next();
      if (!batch) return;
      this.#start(slot, batch, false);
    }
  }

  /**
   * The next job: the scripts of the first owner in the rotation that runs none now, those that share the first one's
   * declarations and budget (one owner's scripts never hold two workers while another waits).
   */
  #next(): Batch | undefined {
    const running = new Set(this.#slots.map((slot) => slot.batch?.owner));
    const owner = [...this.#queues.keys()].find((candidate) => !running.has(candidate));
    if (owner === undefined) return undefined;
    const queue = this.#queues.get(owner)!;
    this.#queues.delete(owner);
    const first = queue.shift()!;
    const items = [first];
    const joins = (check: PendingCheck) => !first.solo && !check.solo && check.key === first.key && check.timeoutMs === first.timeoutMs;
    for (let i = 0; i < queue.length && items.length < MAX_BATCH; ) {
      if (joins(queue[i]!)) items.push(...queue.splice(i, 1));
      else i++;
    }
    if (queue.length > 0) this.#queues.set(owner, queue);
    return { job: ++this.#jobs, owner, key: first.key, declarations: first.declarations, items };
  }

  #start(slot: Slot, batch: Batch, withDeclarations: boolean): void {
    slot.batch = batch;
    const job: CheckJob = {
      kind: 'check',
      job: batch.job,
      key: batch.key,
      ...(withDeclarations ? { declarations: [...batch.declarations] } : {}),
      requests: batch.items.map((item) => item.request),
    };
    clearTimeout(batch.timer);
    const notReady = () => {
      this.#terminate(slot);
      this.#fail(slot, { code: 'INTERNAL', message: `The typecheck worker did not get ready within ${READY_MS} ms` });
    };
    if (batch.items.length > 0) batch.timer = setTimeout(notReady, READY_MS);
    void this.#worker(slot).then(
      // The job may have ended while the worker started (cancelled, timed out).
      (worker) => (slot.batch === batch ? worker.postMessage(job) : undefined),
      (error: unknown) => this.#fail(slot, { code: 'INTERNAL', message: `The typecheck worker did not start: ${String(error)}` }),
    );
  }

  async #worker(slot: Slot): Promise<Worker> {
    if (slot.worker) return slot.worker;
    const worker = new Worker(await checkWorkerEntry(), {
      name: 'agent-spaces typecheck',
      env: {},
      resourceLimits: { maxOldGenerationSizeMb: this.#memoryMb },
    });
    slot.worker = worker;
    worker.on('message', (message: FromWorker) => this.#onMessage(slot, message));
    worker.on('error', (error: Error & { code?: string }) => {
      if (slot.worker !== worker) return;
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') this.#overBudget(slot, 'memory');
      else this.#fail(slot, { code: 'INTERNAL', message: `The typecheck worker failed: ${error.message}` });
    });
    worker.on('exit', () => {
      if (slot.worker !== worker) return;
      slot.worker = undefined;
      if (slot.batch) this.#fail(slot, { code: 'INTERNAL', message: 'The typecheck worker exited' });
    });
    // After the listeners: adding a 'message' listener refs the worker's port again.
    worker.unref();
    return worker;
  }

  #onMessage(slot: Slot, message: FromWorker): void {
    const batch = slot.batch;
    if (!batch || message.job !== batch.job) return;
    if (message.kind === 'need') return this.#start(slot, batch, true);
    if (message.kind === 'started') {
      clearTimeout(batch.timer);
      if (batch.items.length > 0) batch.timer = setTimeout(() => this.#overBudget(slot, 'time'), batch.items[0]!.timeoutMs);
      return;
    }
    if (message.kind === 'failed') return this.#fail(slot, readWireError(message.error, 'run') ?? { code: 'INTERNAL', message: 'The typecheck failed' });
    this.#release(slot);
    batch.items.forEach((item, i) => item.resolve(message.results[i]!));
    this.#dispatch();
    if (batch.key !== LIBRARIES_ONLY) this.#readyAnother(batch);
  }

  /**
   * Readies a worker in a slot that has none, for `batch`'s declarations, {@link READY_ANOTHER_MS} after the job when
   * nothing waits: a second owner's check then finds a warm worker rather than waiting for TypeScript to load.
   */
  #readyAnother(batch: Batch): void {
    const pending = this.#readyFor !== undefined;
    this.#readyFor = batch;
    if (pending) return;
    setTimeout(() => {
      const latest = this.#readyFor!;
      this.#readyFor = undefined;
      const cold = this.#slots.find((slot) => !slot.worker && !slot.batch);
      if (cold && this.#queues.size === 0) this.#start(cold, { ...latest, job: ++this.#jobs, owner: READYING, items: [] }, true);
    }, READY_ANOTHER_MS).unref();
  }

  /**
   * The job went over its time or heap budget: its worker is stopped, and its scripts fail (alone) or are checked again
   * one by one. A new worker is readied for the same declarations at once, unless a job already waits for the slot.
   */
  #overBudget(slot: Slot, budget: 'time' | 'memory'): void {
    const batch = slot.batch;
    this.#terminate(slot);
    if (!batch) return;
    const limit = budget === 'time' ? batch.items[0]!.timeoutMs : this.#memoryMb;
    const message =
      budget === 'time'
        ? `The typecheck took longer than its budget of ${limit} ms and was stopped (typecheck.timeoutMs)`
        : `The typecheck needed more than its budget of ${limit} MiB of heap and was stopped (typecheck.memoryMb)`;
    this.#fail(slot, { code: 'TYPECHECK_LIMIT', message, data: { budget, limit } });
    if (!slot.batch && batch.items.length > 0) this.#start(slot, { ...batch, job: ++this.#jobs, owner: READYING, items: [] }, true);
  }

  /** Ends the slot's job with `error`; a job of several scripts over a budget is checked again one script at a time. */
  #fail(slot: Slot, error: WireError): void {
    const batch = this.#release(slot);
    if (!batch) return;
    if (error.code === 'TYPECHECK_LIMIT' && batch.items.length > 1) {
      const queue = this.#queues.get(batch.owner) ?? [];
      queue.unshift(...batch.items.map((item) => ({ ...item, solo: true })));
      this.#queues.set(batch.owner, queue);
    } else {
      for (const item of batch.items) item.reject(AgentSpacesError.fromWire(error));
    }
    this.#dispatch();
  }

  /** Stops the slot's worker; its events are ignored from now on, and the slot's next job starts a new one. */
  #terminate(slot: Slot): void {
    void slot.worker?.terminate();
    slot.worker = undefined;
  }

  #release(slot: Slot): Batch | undefined {
    const batch = slot.batch;
    slot.batch = undefined;
    clearTimeout(batch?.timer);
    return batch;
  }

  /**
   * Ends the checks `source` asked for with `SPACE_CLOSED`: queued ones at once, and running jobs that hold only its
   * scripts by stopping their worker (so a closing host does not wait for a check).
   */
  cancel(source: object): void {
    const closed = () => new AgentSpacesError('SPACE_CLOSED', 'The typechecker was closed before the check finished');
    for (const [owner, queue] of this.#queues) {
      const kept = queue.filter((check) => check.source !== source);
      for (const check of queue) if (check.source === source) check.reject(closed());
      if (kept.length > 0) this.#queues.set(owner, kept);
      else this.#queues.delete(owner);
    }
    for (const slot of this.#slots) {
      const batch = slot.batch;
      if (!batch || batch.items.length === 0 || batch.items.some((check) => check.source !== source)) continue;
      this.#terminate(slot);
      this.#release(slot);
      for (const check of batch.items) check.reject(closed());
    }
    this.#dispatch();
  }
}

const pools = new Map<number, CheckPool>();

/** The process's {@link CheckPool} for workers of `memoryMb` of heap: at most 2 workers (1 on a 1-core machine). */
export function checkPool(memoryMb: number): CheckPool {
  let pool = pools.get(memoryMb);
  if (!pool) pools.set(memoryMb, (pool = new CheckPool(memoryMb, Math.min(2, availableParallelism()))));
  return pool;
}
