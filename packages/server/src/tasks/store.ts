import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { AgentSpacesError, isRecord } from '@agent-spaces/capabilities';
import { isTerminal, type TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { ErrorCode, McpError, type CallToolResult, type Result, type Task } from '@modelcontextprotocol/sdk/types.js';
import { toolError } from '../results.js';
import { aliveElsewhere } from '../process-alive.js';
import { TaskFolder, isTaskId } from './files.js';

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

/** What the server keeps of one task besides its result: the task as clients see it, and whose it is. */
export interface TaskRecord {
  task: Task;
  /** Who may see it: the `Connection.principal` that created it. */
  principal: string;
  /** The tool it calls. */
  tool: string;
  /** Ids of the runs it started, in order (from their `runStarted` events). */
  runIds: string[];
  /** The server process that runs it: a task not ended whose process is gone runs no more. */
  process: { pid: number; instance: string };
  /** When it ended (ms since the epoch); it is removed `task.ttl` ms later. */
  endedAt?: number;
}

/** Options of {@link ServerTasks}. */
export interface TaskOptions {
  /**
   * Called at start for each task that was running in a server process that is gone: true keeps it running (its run
   * resumes in this process, which later {@link ServerTasks.settle}s it); by default none is kept, and each is `failed`.
   */
  keepRunning?: (record: TaskRecord) => boolean;
  /** Bounds other than the defaults. */
  limits?: Partial<TaskLimits>;
}

/**
 * The durable tasks of one project, in `<outDir>/state/tasks/<taskId>.json` (and `<taskId>.result.json`): each bound to
 * the principal that created it, never to a transport session, so a new connection of the same principal — or one
 * after a restart — finds it, and another principal never does. {@link view} is the SDK's `TaskStore` for one
 * connection; the other methods are the server's own.
 */
export class ServerTasks {
  readonly limits: TaskLimits;
  readonly #folder: TaskFolder;
  readonly #process = { pid: process.pid, instance: randomUUID() };
  /** How to stop each task this process runs. */
  readonly #live = new Map<string, AbortController>();

  /** Opens the tasks of the project whose build output is `outDir`, removes expired ones and settles orphaned ones. */
  constructor(outDir: string, options: TaskOptions = {}) {
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.#folder = new TaskFolder(join(outDir, 'state', 'tasks'));
    this.#folder.removePartials();
    for (const record of this.#records()) {
      if (isTerminal(record.task.status) || runsElsewhere(record)) continue;
      if (options.keepRunning?.(record)) this.#write({ ...record, process: this.#process });
      else this.settle(record.task.taskId, 'failed', toolError({ code: 'ABORTED', message: RESTARTED, data: { reason: 'restart' } }), RESTARTED);
    }
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
   * A new `working` task of `principal` calling `tool`. At the principal's cap the oldest ended tasks are dropped;
   * throws `TOO_MANY_TASKS` when all of them still run.
   */
  create(principal: string, tool: string, ttl: number): Task {
    this.#makeRoom(principal);
    const now = new Date().toISOString();
    const task: Task = { taskId: randomUUID(), status: 'working', ttl, createdAt: now, lastUpdatedAt: now, pollInterval: this.limits.pollIntervalMs };
    this.#write({ task, principal, tool, runIds: [], process: this.#process });
    return task;
  }

  /** The task `taskId` of `principal`, or undefined (no such task, another principal's, expired, or not an id). */
  find(principal: string, taskId: unknown): TaskRecord | undefined {
    const record = isTaskId(taskId) ? this.#load(taskId) : undefined;
    return record?.principal === principal ? record : undefined;
  }

  /** The task running run `runId`, or undefined: how a run resumed after a restart finds its task. */
  byRun(runId: string): TaskRecord | undefined {
    return this.#records().find((r) => r.runIds.includes(runId));
  }

  /** The tasks not ended yet, of every principal (at start: those a stopped process left). */
  unfinished(): TaskRecord[] {
    return this.#records().filter((r) => !isTerminal(r.task.status));
  }

  /** Records that task `taskId` started run `runId`. */
  noteRun(taskId: string, runId: string): void {
    const record = this.#load(taskId);
    if (record && !record.runIds.includes(runId)) this.#write({ ...record, runIds: [...record.runIds, runId] });
  }

  /** Sets a task that has not ended to `working` or `input_required` (with `statusMessage`). */
  setStatus(taskId: string, status: 'working' | 'input_required', statusMessage?: string): void {
    const record = this.#load(taskId);
    if (!record || isTerminal(record.task.status)) return;
    this.#write({ ...record, task: stamp(record.task, status, statusMessage) });
  }

  /**
   * Ends task `taskId` with `status` and `result` (cut to `maxResultBytes`), whoever's it is; a `cancelled` one's run
   * is aborted. False, and nothing changed, when there is no such task or it has ended already.
   */
  settle(taskId: string, status: 'completed' | 'failed' | 'cancelled', result: Result, statusMessage?: string): boolean {
    const record = this.#load(taskId);
    if (!record || isTerminal(record.task.status)) return false;
    this.#folder.write(taskId, this.#resultText(result), '.result');
    this.#write({ ...record, task: stamp(record.task, status, statusMessage), endedAt: preciseNow() });
    const live = this.#live.get(taskId);
    this.#live.delete(taskId);
    if (status === 'cancelled') live?.abort(new AgentSpacesError('ABORTED', 'The task was cancelled'));
    return true;
  }

  /** Lets `tasks/cancel` of task `taskId` abort `controller` (until the task is settled). */
  track(taskId: string, controller: AbortController): void {
    this.#live.set(taskId, controller);
  }

  /** The SDK's `TaskStore` as seen by one connection: every method acts for `principal()` and ignores the session id. */
  view(principal: () => string): TaskStore {
    return {
      createTask: async (params, _requestId, request) => {
        const tool = isRecord(request.params) && typeof request.params.name === 'string' ? request.params.name : request.method;
        return this.create(principal(), tool, this.ttl(params.ttl));
      },
      getTask: async (taskId) => this.find(principal(), taskId)?.task ?? null,
      storeTaskResult: async (taskId, status, result) => {
        if (this.find(principal(), taskId)) this.settle(taskId, status, result);
      },
      getTaskResult: async (taskId) => this.#result(principal(), taskId),
      updateTaskStatus: async (taskId, status, statusMessage) => {
        if (!this.find(principal(), taskId)) return;
        if (status === 'working' || status === 'input_required') this.setStatus(taskId, status, statusMessage);
        else this.settle(taskId, status, endedResult(status, statusMessage), statusMessage);
      },
      listTasks: async (cursor) => this.#list(principal(), cursor),
    };
  }

  #result(principal: string, taskId: string): Result {
    const record = this.find(principal, taskId);
    const result = record && isTerminal(record.task.status) ? this.#folder.read(taskId, '.result') : undefined;
    if (!isRecord(result)) throw new McpError(ErrorCode.InvalidParams, `Task not found or without a result: ${taskId}`);
    return result;
  }

  /** One page of `principal`'s tasks, oldest first; `cursor` is the id of the last task of the page before. */
  #list(principal: string, cursor: string | undefined): { tasks: Task[]; nextCursor?: string } {
    const mine = this.#records().filter((r) => r.principal === principal);
    const start = cursor === undefined ? 0 : mine.findIndex((r) => r.task.taskId === cursor) + 1;
    if (start === 0 && cursor !== undefined) throw new Error(`Invalid cursor: ${cursor.slice(0, 64)}`);
    const page = mine.slice(start, start + this.limits.pageSize);
    const more = start + page.length < mine.length;
    return { tasks: page.map((r) => r.task), ...(more ? { nextCursor: page.at(-1)!.task.taskId } : {}) };
  }

  #makeRoom(principal: string): void {
    const mine = this.#records().filter((r) => r.principal === principal);
    const excess = mine.length - this.limits.maxPerPrincipal + 1;
    if (excess <= 0) return;
    const ended = mine.filter((r) => r.endedAt !== undefined).sort((a, b) => a.endedAt! - b.endedAt!);
    if (ended.length < excess) {
      const limit = this.limits.maxPerPrincipal;
      throw new AgentSpacesError('TOO_MANY_TASKS', `${limit} tasks are running for this client: cancel one or wait for one to end`, { limit });
    }
    for (const record of ended.slice(0, excess)) this.#folder.remove(record.task.taskId);
  }

  #resultText(result: Result): string {
    const text = JSON.stringify(result);
    const bytes = Buffer.byteLength(text);
    if (bytes <= this.limits.maxResultBytes) return text;
    const limit = this.limits.maxResultBytes;
    const message = `The task's result is ${bytes} bytes, over the ${limit} bytes a task keeps`;
    return JSON.stringify(toolError({ code: 'PAYLOAD_TOO_LARGE', message, data: { limit, bytes, direction: 'task result' } }));
  }

  /** Every task on record, oldest first; expired ones are removed on the way. */
  #records(): TaskRecord[] {
    const records = this.#folder.ids().flatMap((id) => this.#load(id) ?? []);
    return records.sort((a, b) => a.task.createdAt.localeCompare(b.task.createdAt) || a.task.taskId.localeCompare(b.task.taskId));
  }

  /** Task `taskId` as on record, or undefined when there is none, it is malformed, or it expired (then it is removed). */
  #load(taskId: string): TaskRecord | undefined {
    const record = this.#folder.read(taskId);
    if (!isTaskRecord(record, taskId)) return undefined;
    const { endedAt, task } = record;
    if (endedAt === undefined || task.ttl === null || Date.now() < endedAt + task.ttl) return record;
    this.#folder.remove(taskId);
    return undefined;
  }

  #write(record: TaskRecord): void {
    this.#folder.write(record.task.taskId, JSON.stringify(record));
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

/** True when the process that ran `record` is another one, still alive (a second server on the same project). */
function runsElsewhere(record: TaskRecord): boolean {
  return aliveElsewhere(record.process.pid);
}

/** True when `value` read from task file `taskId` has the shape of a {@link TaskRecord} of that task. */
function isTaskRecord(value: unknown, taskId: string): value is TaskRecord {
  if (!isRecord(value) || !isRecord(value.task) || !isRecord(value.process)) return false;
  const { task } = value;
  return (
    task.taskId === taskId &&
    typeof task.status === 'string' &&
    typeof task.createdAt === 'string' &&
    typeof value.principal === 'string' &&
    typeof value.tool === 'string' &&
    Array.isArray(value.runIds) &&
    typeof value.process.pid === 'number'
  );
}

/** Milliseconds since the epoch with the fraction this process can tell: tasks ended in one millisecond keep their order. */
function preciseNow(): number {
  return performance.timeOrigin + performance.now();
}
