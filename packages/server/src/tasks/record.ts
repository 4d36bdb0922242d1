import { isRecord } from '@agent-spaces/capabilities';
import type { Task } from '@modelcontextprotocol/sdk/types.js';

/** Task ids are `randomUUID()`s: anything else names no task (and is never used as a path or sent to a database). */
const TASK_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** True when `id` can be a task id: a lowercase UUID string, so it can never name a path outside the folder. */
export function isTaskId(id: unknown): id is string {
  return typeof id === 'string' && TASK_ID.test(id);
}

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
  /** The replica that runs it, when replicas share the records (`TaskOptions.owner`): its liveness decides, not the pid. */
  replica?: string;
  /** When it ended (ms since the epoch); it is removed `task.ttl` ms later. */
  endedAt?: number;
}

/** A change of one task: its new record, and the JSON text of its result when it ends now. */
export interface TaskChange {
  record: TaskRecord;
  resultText?: string;
}

/** A task that ended in another process (or replica) than the one that hears of it. */
export interface TaskEnded {
  taskId: string;
  status: Task['status'];
}

/**
 * Where a server keeps its task records and results: files of one folder ({@link FileTaskRecords}) or a PostgreSQL
 * database shared by replicas (`PostgresTaskRecords`). Every method may reject (`STORE_UNAVAILABLE` for a shared
 * store that did not answer); none decides a bound or expiry — `ServerTasks` does, through the callbacks it passes.
 */
export interface TaskRecords {
  /** Removes what a crashed process left half-written; called once before the first sweep. */
  prepare(): Promise<void>;
  /** Task `taskId` as on record (expired or not), or undefined: none, malformed, or not a task id. */
  get(taskId: string): Promise<TaskRecord | undefined>;
  /** The tasks of `principal`, oldest first (by `createdAt`, then id). */
  byPrincipal(principal: string): Promise<TaskRecord[]>;
  /** The tasks not ended yet, of every principal, oldest first. */
  unfinished(): Promise<TaskRecord[]>;
  /** The task that started run `runId`, or undefined. */
  byRun(runId: string): Promise<TaskRecord | undefined>;
  /**
   * Adds `record`, first removing the tasks that `makeRoom` names among its principal's (oldest first); `makeRoom`
   * may throw to refuse it. Atomic per principal across every process that shares the records.
   */
  insert(record: TaskRecord, makeRoom: (mine: TaskRecord[]) => string[]): Promise<void>;
  /**
   * Applies `change` to task `taskId` as on record (none: nothing happens) and keeps what it returns; undefined keeps
   * it as it is. Atomic per task across every process that shares the records. Resolves with the record kept.
   */
  update(taskId: string, change: (record: TaskRecord) => TaskChange | undefined): Promise<TaskRecord | undefined>;
  /** The result of task `taskId` as kept (parsed JSON), or undefined. */
  result(taskId: string): Promise<unknown>;
  /** Removes task `taskId` and its result. */
  remove(taskId: string): Promise<void>;
  /** Removes every task that expired by `now` (ms since the epoch), as {@link expiresAt} says: the sweep at start. */
  removeExpired(now: number): Promise<void>;
  /**
   * Calls `listener` for each task that another process sharing the records ends (settled or cancelled there), so the
   * process that runs it stops its run. Absent where no other process acts on the records at the same time.
   */
  watchEnded?(listener: (ended: TaskEnded) => void): Promise<() => Promise<void>>;
}

/** When `record` expires (ms since the epoch): `task.ttl` ms after it ended; never while it runs or without a ttl. */
export function expiresAt(record: TaskRecord): number {
  const { endedAt, task } = record;
  return endedAt === undefined || task.ttl === null ? Infinity : endedAt + task.ttl;
}

/** True when `value` (read from the records as task `taskId`) has the shape of a {@link TaskRecord} of that task. */
export function isTaskRecord(value: unknown, taskId: string): value is TaskRecord {
  if (!isRecord(value) || !isRecord(value.task) || !isRecord(value.process)) return false;
  const { task } = value;
  return (
    task.taskId === taskId &&
    typeof task.status === 'string' &&
    typeof task.createdAt === 'string' &&
    typeof value.principal === 'string' &&
    typeof value.tool === 'string' &&
    Array.isArray(value.runIds) &&
    typeof value.process.pid === 'number' &&
    (value.replica === undefined || typeof value.replica === 'string')
  );
}

/** Oldest first: by `createdAt`, then by id. */
export function byAge(a: TaskRecord, b: TaskRecord): number {
  return a.task.createdAt.localeCompare(b.task.createdAt) || a.task.taskId.localeCompare(b.task.taskId);
}
