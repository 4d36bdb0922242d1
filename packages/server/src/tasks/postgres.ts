import { isRecord } from '@agent-spaces/capabilities';
import { expiresAt, isTaskId, isTaskRecord, type TaskChange, type TaskEnded, type TaskRecord, type TaskRecords } from './record.js';

/** The channel on which a process that ends a task tells the others (payload: `{ taskId, status }` as JSON). */
const ENDED_CHANNEL = 'agent_spaces_task_ended';

/** Runs one statement and returns its rows (a `SharedDatabase`'s `query`, or a transaction's). */
type Query = <R = Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<R[]>;

/**
 * What {@link PostgresTaskRecords} uses of a `SharedDatabase` (`@agent-spaces/bridge`): the `agent_spaces_tasks`
 * table of its migrations, statements, transactions and notifications. Its errors pass through as they are
 * (`STORE_UNAVAILABLE` when PostgreSQL did not answer).
 */
export interface TaskDatabase {
  query: Query;
  transaction<T>(fn: (query: Query) => Promise<T>): Promise<T>;
  listen(channel: string, onMessage: (payload: string) => void): Promise<() => Promise<void>>;
}

/** One row of `agent_spaces_tasks` as read. */
interface Row {
  record: unknown;
}

const COLUMNS = 'task_id, principal, tool, created_at, ended_at, expires_at, run_ids, record';

/**
 * Task records in the PostgreSQL database that several `mcp serve` replicas share (table `agent_spaces_tasks`): a
 * task created through one replica is found, listed, awaited and cancelled through any other. Creating one is atomic
 * per principal (an advisory lock, so the cap holds across replicas); changing one locks its row. A task's end is
 * announced with `NOTIFY` in the same transaction, so the replica that runs it hears of a `tasks/cancel` made
 * elsewhere ({@link watchEnded}). Records and results are `json` (any string a run produced is kept as it is).
 */
export class PostgresTaskRecords implements TaskRecords {
  readonly #db: TaskDatabase;

  /** The task records of `database` (its migrations made the table). */
  constructor(database: TaskDatabase) {
    this.#db = database;
  }

  async prepare(): Promise<void> {
    // Every write is one transaction: nothing is left half-written.
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    if (!isTaskId(taskId)) return undefined;
    return this.#one(this.#db.query<Row>('SELECT record FROM agent_spaces_tasks WHERE task_id = $1', [taskId]));
  }

  async byPrincipal(principal: string): Promise<TaskRecord[]> {
    return recordsOf(await this.#db.query<Row>('SELECT record FROM agent_spaces_tasks WHERE principal = $1 ORDER BY created_at, task_id', [principal]));
  }

  async unfinished(): Promise<TaskRecord[]> {
    return recordsOf(await this.#db.query<Row>('SELECT record FROM agent_spaces_tasks WHERE ended_at IS NULL ORDER BY created_at, task_id'));
  }

  async byRun(runId: string): Promise<TaskRecord | undefined> {
    return this.#one(this.#db.query<Row>('SELECT record FROM agent_spaces_tasks WHERE $1 = ANY (run_ids) ORDER BY created_at, task_id LIMIT 1', [runId]));
  }

  async insert(record: TaskRecord, makeRoom: (mine: TaskRecord[]) => string[]): Promise<void> {
    await this.#db.transaction(async (query) => {
      await query("SELECT pg_advisory_xact_lock(hashtext('agent_spaces_tasks:' || $1))", [record.principal]);
      const mine = recordsOf(await query<Row>('SELECT record FROM agent_spaces_tasks WHERE principal = $1 ORDER BY created_at, task_id', [record.principal]));
      const drop = makeRoom(mine);
      if (drop.length > 0) await query('DELETE FROM agent_spaces_tasks WHERE task_id = ANY ($1)', [drop]);
      await query(`INSERT INTO agent_spaces_tasks (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, columns(record));
    });
  }

  async update(taskId: string, change: (record: TaskRecord) => TaskChange | undefined): Promise<TaskRecord | undefined> {
    if (!isTaskId(taskId)) return undefined;
    return this.#db.transaction(async (query) => {
      const record = await this.#one(query<Row>('SELECT record FROM agent_spaces_tasks WHERE task_id = $1 FOR UPDATE', [taskId]));
      const next = record && change(record);
      if (!next) return record;
      const [, , , , endedAt, expires, runIds, json] = columns(next.record);
      const result = next.resultText ?? null;
      await query('UPDATE agent_spaces_tasks SET ended_at = $2, expires_at = $3, run_ids = $4, record = $5, result = COALESCE($6::json, result) WHERE task_id = $1', [
        taskId,
        endedAt,
        expires,
        runIds,
        json,
        result,
      ]);
      if (record.endedAt === undefined && next.record.endedAt !== undefined) {
        const ended: TaskEnded = { taskId, status: next.record.task.status };
        await query('SELECT pg_notify($1, $2)', [ENDED_CHANNEL, JSON.stringify(ended)]);
      }
      return next.record;
    });
  }

  async result(taskId: string): Promise<unknown> {
    if (!isTaskId(taskId)) return undefined;
    const [row] = await this.#db.query<{ result: unknown }>('SELECT result FROM agent_spaces_tasks WHERE task_id = $1', [taskId]);
    return row?.result ?? undefined;
  }

  async remove(taskId: string): Promise<void> {
    if (isTaskId(taskId)) await this.#db.query('DELETE FROM agent_spaces_tasks WHERE task_id = $1', [taskId]);
  }

  async removeExpired(now: number): Promise<void> {
    await this.#db.query('DELETE FROM agent_spaces_tasks WHERE expires_at <= $1', [now]);
  }

  /** Hears every task ended by any process sharing the database (this one included: `ServerTasks` tells them apart). */
  async watchEnded(listener: (ended: TaskEnded) => void): Promise<() => Promise<void>> {
    return this.#db.listen(ENDED_CHANNEL, (payload) => {
      const ended = parseEnded(payload);
      if (ended) listener(ended);
    });
  }

  async #one(rows: Promise<Row[]>): Promise<TaskRecord | undefined> {
    return recordsOf(await rows)[0];
  }
}

/** The values of {@link COLUMNS} for `record`: `expires_at` is {@link expiresAt} (null for never). */
function columns(record: TaskRecord): unknown[] {
  const expires = expiresAt(record);
  return [
    record.task.taskId,
    record.principal,
    record.tool,
    record.task.createdAt,
    record.endedAt ?? null,
    Number.isFinite(expires) ? expires : null,
    record.runIds,
    JSON.stringify(record),
  ];
}

/** The well-formed records of `rows` (a row changed by hand into something else names no task). */
function recordsOf(rows: Row[]): TaskRecord[] {
  return rows.flatMap(({ record }) => {
    const taskId = isRecord(record) && isRecord(record.task) ? record.task.taskId : undefined;
    return typeof taskId === 'string' && isTaskRecord(record, taskId) ? [record] : [];
  });
}

/** The {@link TaskEnded} a notification carries, or undefined for anything else. */
function parseEnded(payload: string): TaskEnded | undefined {
  try {
    const value = JSON.parse(payload) as unknown;
    if (isRecord(value) && isTaskId(value.taskId) && typeof value.status === 'string') return { taskId: value.taskId, status: value.status as TaskEnded['status'] };
  } catch {
    // not one of ours
  }
  return undefined;
}
