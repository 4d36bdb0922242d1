import { randomUUID } from 'node:crypto';
import { AgentSpacesError, isRecord } from '@agent-spaces/capabilities';
import { isTerminal, type TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { ErrorCode, McpError, type CallToolResult, type Result, type Task } from '@modelcontextprotocol/sdk/types.js';
import { toolError } from '../results.js';
import { aliveElsewhere } from '../process-alive.js';
import { FileTaskRecords } from './files.js';
import { expiresAt, isTaskId, type TaskEnded, type TaskRecord, type TaskRecords } from './record.js';

export type { TaskRecord, TaskRecords } from './record.js';

/** The bounds of a server's tasks (docs/mcp-server.md, "Tasks"). */
export interface TaskLimits {
  /** Most tasks one principal keeps; past it the oldest ended ones are dropped, and when all run a new one is refused. */
  maxPerPrincipal: number;
  /** How long an ended task is kept when the client asks for no `ttl`, in ms. */
  defaultTtlMs: number;
  /** The longest `ttl` a client may ask for, in ms (a longer one is cut to this). */
  maxTtlMs: number;
  /** Largest result kept, in bytes of JSON; a larger one is replaced by a `PAYLOAD_TOO_LARGE` error result. */
  maxResultBytes: number;
  /** The `pollInterval` suggested to clients, in ms. */
  pollIntervalMs: number;
  /** Most tasks in one `tasks/list` page. */
  pageSize: number;
}

/** Defaults of {@link TaskLimits}; the result cap is above a run's default limits (1 MiB result, 256 KiB logs). */
const DEFAULT_LIMITS: TaskLimits = {
  maxPerPrincipal: 1000,
  defaultTtlMs: 60 * 60 * 1000,
  maxTtlMs: 24 * 60 * 60 * 1000,
  maxResultBytes: 4 * 1024 * 1024,
  pollIntervalMs: 500,
  pageSize: 100,
};

/** The status message (and error) of a task whose server process ended while it ran. */
const RESTARTED = 'the server restarted while the task ran';

/** The replica this server is, when replicas share the task records: a task's runner is a replica, not a pid. */
interface TaskOwner {
  /** This replica's id, kept on each task it creates or takes over. */
  replica: string;
  /** Resolves true while replica `replica` lives: its tasks are left to it; a dead one's are settled by a live one. */
  alive(replica: string): Promise<boolean>;
}

/** Options of {@link ServerTasks}. */
export interface TaskOptions {
  /**
   * Called at each sweep for each task that was running in a server process that is gone: true keeps it running (its
   * run resumes in this process, which later {@link ServerTasks.settle}s it); by default none is kept, and each is
   * `failed`.
   */
  keepRunning?: (record: TaskRecord) => boolean;
  /** Bounds other than the defaults. */
  limits?: Partial<TaskLimits>;
  /** Where the tasks are kept: by default files in `<outDir>/state/tasks/` ({@link FileTaskRecords}). */
  records?: TaskRecords;
  /** This server as one replica of several sharing `records`; without it a task's runner is its process (pid). */
  owner?: TaskOwner;
}

/**
 * The durable tasks of one project, in {@link TaskRecords} (by default `<outDir>/state/tasks/<taskId>.json` and
 * `<taskId>.result.json`): each bound to the principal that created it, never to a transport session, so a new
 * connection of the same principal — one after a restart, or one to another replica sharing the records — finds it,
 * and another principal never does. {@link view} is the SDK's `TaskStore` for one connection; the other methods are
 * the server's own. Every method first waits for the start-up sweep ({@link ready}); each rejects with the records'
 * error (`STORE_UNAVAILABLE` for a shared store that did not answer).
 */
export class ServerTasks {
  readonly limits: TaskLimits;
  readonly #records: TaskRecords;
  readonly #options: TaskOptions;
  readonly #process = { pid: process.pid, instance: randomUUID() };
  /** How to stop each task this process runs. */
  readonly #live = new Map<string, AbortController>();
  /** Tasks this process is settling: their end, heard back from the shared records, is its own. */
  readonly #ending = new Set<string>();
  #ready: Promise<void> | undefined;
  #prepared = false;
  #unwatch: (() => Promise<void>) | undefined;

  /** The tasks of the project whose build output is `outDir` (or of `options.records`); swept on first use. */
  constructor(outDir: string, options: TaskOptions = {}) {
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.#records = options.records ?? new FileTaskRecords(outDir);
    this.#options = options;
  }

  /** {@link ServerTasks} once its start-up sweep ran. */
  static async open(outDir: string, options: TaskOptions = {}): Promise<ServerTasks> {
    const tasks = new ServerTasks(outDir, options);
    await tasks.ready();
    return tasks;
  }

  /**
   * Resolves once the start-up work is done: partial files removed, ends in other processes heard, and a
   * {@link sweep}. A failure (the store did not answer) rejects this call, and the next call tries again.
   */
  ready(): Promise<void> {
    this.#ready ??= this.#start().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  /**
   * Removes expired tasks and settles orphaned ones: each task not ended whose runner is gone (its process, or its
   * replica with `owner`) is `failed` — or taken over, when `keepRunning` says so. Tasks of a live runner (this
   * process included) are left alone. Runs at start; a replica may run it again to settle a dead replica's tasks.
   */
  async sweep(): Promise<void> {
    await this.#records.removeExpired(Date.now());
    for (const record of await this.#records.unfinished()) {
      if (await this.#runnerAlive(record)) continue;
      const taskId = record.task.taskId;
      const sameRunner = (current: TaskRecord) => current.process.instance === record.process.instance;
      if (this.#options.keepRunning?.(record)) {
        await this.#records.update(taskId, (current) => (sameRunner(current) && current.endedAt === undefined ? { record: this.#owned(current) } : undefined));
      } else {
        await this.#end(taskId, 'failed', toolError({ code: 'ABORTED', message: RESTARTED, data: { reason: 'restart' } }), RESTARTED, sameRunner);
      }
    }
  }

  /** Stops hearing of tasks ended elsewhere (the records themselves stay open: their owner closes them). */
  async close(): Promise<void> {
    const unwatch = this.#unwatch;
    this.#unwatch = undefined;
    await unwatch?.();
  }

  /**
   * The ttl of a new task: `requested` ms (rounded up) cut to `maxTtlMs`, or `defaultTtlMs` without one. Throws
   * `INVALID_ARGUMENTS` for a value that is not a positive number.
   */
  ttl(requested: unknown): number {
    if (requested === undefined || requested === null) return this.limits.defaultTtlMs;
    if (typeof requested !== 'number' || !(requested > 0)) {
      throw new AgentSpacesError('INVALID_ARGUMENTS', `task.ttl must be a positive number of milliseconds, got ${JSON.stringify(requested)}`, {
        field: 'task.ttl',
      });
    }
    return Math.min(Math.ceil(requested), this.limits.maxTtlMs);
  }

  /**
   * A new `working` task of `principal` calling `tool`. At the principal's cap (counted across every process sharing
   * the records) the oldest ended tasks are dropped; rejects `TOO_MANY_TASKS` when all of them still run.
   */
  async create(principal: string, tool: string, ttl: number): Promise<Task> {
    await this.ready();
    const now = new Date().toISOString();
    const task: Task = { taskId: randomUUID(), status: 'working', ttl, createdAt: now, lastUpdatedAt: now, pollInterval: this.limits.pollIntervalMs };
    await this.#records.insert(this.#owned({ task, principal, tool, runIds: [], process: this.#process }), (mine) => this.#room(mine));
    return task;
  }

  /** The task `taskId` of `principal`, or undefined (no such task, another principal's, expired, or not an id). */
  async find(principal: string, taskId: unknown): Promise<TaskRecord | undefined> {
    const record = isTaskId(taskId) ? await this.#load(taskId) : undefined;
    return record?.principal === principal ? record : undefined;
  }

  /** The task running run `runId`, or undefined: how a run resumed after a restart finds its task. */
  async byRun(runId: string): Promise<TaskRecord | undefined> {
    await this.ready();
    const record = await this.#records.byRun(runId);
    return record && Date.now() < expiresAt(record) ? record : undefined;
  }

  /** The tasks not ended yet, of every principal (at start: those a stopped process left). */
  async unfinished(): Promise<TaskRecord[]> {
    await this.ready();
    return this.#records.unfinished();
  }

  /** Records that task `taskId` started run `runId`. */
  async noteRun(taskId: string, runId: string): Promise<void> {
    await this.ready();
    await this.#records.update(taskId, (record) => (record.runIds.includes(runId) ? undefined : { record: { ...record, runIds: [...record.runIds, runId] } }));
  }

  /** Sets a task that has not ended to `working` or `input_required` (with `statusMessage`). */
  async setStatus(taskId: string, status: 'working' | 'input_required', statusMessage?: string): Promise<void> {
    await this.ready();
    await this.#records.update(taskId, (record) => (isTerminal(record.task.status) ? undefined : { record: { ...record, task: stamp(record.task, status, statusMessage) } }));
  }

  /**
   * Ends task `taskId` with `status` and `result` (cut to `maxResultBytes`), whoever's it is; a `cancelled` one's run
   * is aborted — in the process that runs it, wherever that is, when the records tell other processes of ends.
   * Resolves false, and nothing changed, when there is no such task or it has ended already.
   */
  async settle(taskId: string, status: 'completed' | 'failed' | 'cancelled', result: Result, statusMessage?: string): Promise<boolean> {
    await this.ready();
    return this.#end(taskId, status, result, statusMessage, () => true);
  }

  /** Lets `tasks/cancel` of task `taskId` abort `controller` (until the task is settled). */
  track(taskId: string, controller: AbortController): void {
    this.#live.set(taskId, controller);
  }

  /** Forgets how to stop task `taskId` (its run ended, but the task could not be settled: a later sweep fails it). */
  untrack(taskId: string): void {
    this.#live.delete(taskId);
  }

  /** True while this process runs task `taskId` in a call ({@link track}ed and not settled yet). */
  runsHere(taskId: string): boolean {
    return this.#live.has(taskId);
  }

  /**
   * The SDK's `TaskStore` as seen by one connection: every method acts for `principal()` and ignores the session id.
   * A store error is a JSON-RPC error with its code as `data.code` (`STORE_UNAVAILABLE`).
   */
  view(principal: () => string): TaskStore {
    return {
      createTask: (params, _requestId, request) =>
        protocolErrors(async () => {
          const tool = isRecord(request.params) && typeof request.params.name === 'string' ? request.params.name : request.method;
          return this.create(principal(), tool, this.ttl(params.ttl));
        }),
      getTask: (taskId) => protocolErrors(async () => (await this.find(principal(), taskId))?.task ?? null),
      storeTaskResult: (taskId, status, result) =>
        protocolErrors(async () => {
          if (await this.find(principal(), taskId)) await this.settle(taskId, status, result);
        }),
      getTaskResult: (taskId) => protocolErrors(() => this.#result(principal(), taskId)),
      updateTaskStatus: (taskId, status, statusMessage) =>
        protocolErrors(async () => {
          if (!(await this.find(principal(), taskId))) return;
          if (status === 'working' || status === 'input_required') await this.setStatus(taskId, status, statusMessage);
          else await this.settle(taskId, status, endedResult(status, statusMessage), statusMessage);
        }),
      listTasks: (cursor) => protocolErrors(() => this.#list(principal(), cursor)),
    };
  }

  async #start(): Promise<void> {
    if (!this.#prepared) await this.#records.prepare();
    this.#prepared = true;
    this.#unwatch ??= await this.#records.watchEnded?.((ended) => this.#endedElsewhere(ended));
    await this.sweep();
  }

  /** Ends task `taskId` if it runs and `may` allows; aborts this process's run of it when it is cancelled. */
  async #end(taskId: string, status: 'completed' | 'failed' | 'cancelled', result: Result, statusMessage: string | undefined, may: (record: TaskRecord) => boolean): Promise<boolean> {
    const resultText = this.#resultText(result);
    const endedAt = preciseNow();
    let ended = false;
    this.#ending.add(taskId);
    try {
      await this.#records.update(taskId, (record) => {
        ended = !isTerminal(record.task.status) && may(record);
        return ended ? { record: { ...record, task: stamp(record.task, status, statusMessage), endedAt }, resultText } : undefined;
      });
    } finally {
      this.#ending.delete(taskId);
    }
    if (!ended) return false;
    const live = this.#live.get(taskId);
    this.#live.delete(taskId);
    if (status === 'cancelled') live?.abort(new AgentSpacesError('ABORTED', 'The task was cancelled'));
    return true;
  }

  /** Another process ended a task: if this one runs it, its run stops (its result could not be kept anyway). */
  #endedElsewhere({ taskId, status }: TaskEnded): void {
    const live = this.#live.get(taskId);
    if (!live || this.#ending.has(taskId)) return;
    this.#live.delete(taskId);
    live.abort(new AgentSpacesError('ABORTED', status === 'cancelled' ? 'The task was cancelled' : `The task was ${status} elsewhere`));
  }

  /** True when the runner of `record` lives: this process, or another process (or replica) that is alive. */
  async #runnerAlive(record: TaskRecord): Promise<boolean> {
    if (record.process.instance === this.#process.instance) return true;
    const owner = this.#options.owner;
    if (owner && record.replica !== undefined) return record.replica !== owner.replica && (await owner.alive(record.replica));
    return aliveElsewhere(record.process.pid);
  }

  /** `record` as run by this process (and replica). */
  #owned(record: TaskRecord): TaskRecord {
    const replica = this.#options.owner?.replica;
    return { ...record, process: this.#process, ...(replica === undefined ? {} : { replica }) };
  }

  async #result(principal: string, taskId: string): Promise<Result> {
    const record = await this.find(principal, taskId);
    const result = record && isTerminal(record.task.status) ? await this.#records.result(taskId) : undefined;
    if (!isRecord(result)) throw new McpError(ErrorCode.InvalidParams, `Task not found or without a result: ${taskId}`);
    return result;
  }

  /** One page of `principal`'s tasks, oldest first; `cursor` is the id of the last task of the page before. */
  async #list(principal: string, cursor: string | undefined): Promise<{ tasks: Task[]; nextCursor?: string }> {
    await this.ready();
    const now = Date.now();
    const mine = (await this.#records.byPrincipal(principal)).filter((record) => now < expiresAt(record));
    const start = cursor === undefined ? 0 : mine.findIndex((r) => r.task.taskId === cursor) + 1;
    if (start === 0 && cursor !== undefined) throw new Error(`Invalid cursor: ${cursor.slice(0, 64)}`);
    const page = mine.slice(start, start + this.limits.pageSize);
    const more = start + page.length < mine.length;
    return { tasks: page.map((r) => r.task), ...(more ? { nextCursor: page.at(-1)!.task.taskId } : {}) };
  }

  /**
   * The ids to remove before one more task of a principal whose tasks are `mine`: the expired ones, and at the cap the
   * oldest ended ones. Throws `TOO_MANY_TASKS` when too many still run.
   */
  #room(mine: TaskRecord[]): string[] {
    const now = Date.now();
    const expired = mine.filter((r) => expiresAt(r) <= now);
    const kept = mine.filter((r) => now < expiresAt(r));
    const excess = kept.length - this.limits.maxPerPrincipal + 1;
    const ids = (records: TaskRecord[]) => records.map((r) => r.task.taskId);
    if (excess <= 0) return ids(expired);
    const ended = kept.filter((r) => r.endedAt !== undefined).sort((a, b) => a.endedAt! - b.endedAt!);
    if (ended.length < excess) {
      const limit = this.limits.maxPerPrincipal;
      throw new AgentSpacesError('TOO_MANY_TASKS', `${limit} tasks are running for this client: cancel one or wait for one to end`, { limit });
    }
    return [...ids(expired), ...ids(ended.slice(0, excess))];
  }

  #resultText(result: Result): string {
    const text = JSON.stringify(result);
    const bytes = Buffer.byteLength(text);
    if (bytes <= this.limits.maxResultBytes) return text;
    const limit = this.limits.maxResultBytes;
    const message = `The task's result is ${bytes} bytes, over the ${limit} bytes a task keeps`;
    return JSON.stringify(toolError({ code: 'PAYLOAD_TOO_LARGE', message, data: { limit, bytes, direction: 'task result' } }));
  }

  /** Task `taskId` as on record, or undefined when there is none, it is malformed, or it expired (then it is removed). */
  async #load(taskId: string): Promise<TaskRecord | undefined> {
    await this.ready();
    const record = await this.#records.get(taskId);
    if (!record || Date.now() < expiresAt(record)) return record;
    await this.#records.remove(taskId);
    return undefined;
  }
}

/**
 * The JSON-RPC error of a task request that failed with `error`, its code as `data.code`: `-32602` for
 * `INVALID_ARGUMENTS`, `-32600` for `TOO_MANY_TASKS`, `-32603` otherwise (`STORE_UNAVAILABLE`, …).
 */
export function taskProtocolError(error: AgentSpacesError): McpError {
  const code = error.code === 'INVALID_ARGUMENTS' ? ErrorCode.InvalidParams : error.code === 'TOO_MANY_TASKS' ? ErrorCode.InvalidRequest : ErrorCode.InternalError;
  return new McpError(code, error.message, { code: error.code, ...error.data });
}

/** Runs `call`, turning an {@link AgentSpacesError} into its {@link taskProtocolError}. */
async function protocolErrors<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw error instanceof AgentSpacesError ? taskProtocolError(error) : error;
  }
}

/** `task` with a new status and message, updated now. */
function stamp(task: Task, status: Task['status'], statusMessage: string | undefined): Task {
  const next: Task = { ...task, status, lastUpdatedAt: new Date().toISOString() };
  if (statusMessage === undefined) delete next.statusMessage;
  else next.statusMessage = statusMessage;
  return next;
}

/** The result kept for a task ended without one (`tasks/cancel`). */
function endedResult(status: 'completed' | 'failed' | 'cancelled', statusMessage: string | undefined): CallToolResult {
  const message = statusMessage ?? `The task was ${status}`;
  return toolError({ code: status === 'cancelled' ? 'ABORTED' : 'INTERNAL', message });
}

/** Milliseconds since the epoch with the fraction this process can tell: tasks ended in one millisecond keep their order. */
function preciseNow(): number {
  return performance.timeOrigin + performance.now();
}
