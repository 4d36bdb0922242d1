import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { byAge, expiresAt, isTaskId, isTaskRecord, type TaskChange, type TaskRecord, type TaskRecords } from './record.js';

/** A temporary file older than this is left over from a crash (a younger one may be another process's write). */
const STALE_PARTIAL_MS = 60_000;

/**
 * One folder of JSON files, `<id>.json` and `<id>.result.json` per task, written atomically (a temporary file renamed
 * into place, so no reader sees half a file) and readable by the server's user only. Synchronous: a status is on disk
 * before the step that follows it. Every name is checked with {@link isTaskId} first.
 */
export class TaskFolder {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  /** The parsed file `<id><suffix>.json`, or undefined when the id is not a task id or the file is missing or bad. */
  read(id: string, suffix: '' | '.result' = ''): unknown {
    if (!isTaskId(id)) return undefined;
    try {
      return JSON.parse(readFileSync(join(this.dir, `${id}${suffix}.json`), 'utf8')) as unknown;
    } catch {
      return undefined;
    }
  }

  /** Writes `text` as `<id><suffix>.json`, replacing it atomically. */
  write(id: string, text: string, suffix: '' | '.result' = ''): void {
    if (!isTaskId(id)) throw new Error(`Not a task id: ${id}`);
    const partial = join(this.dir, `.${id}${suffix}.${randomUUID()}.tmp`);
    writeFileSync(partial, text, { mode: 0o600 });
    try {
      renameSync(partial, join(this.dir, `${id}${suffix}.json`));
    } catch (error) {
      rmSync(partial, { force: true });
      throw error;
    }
  }

  /** Removes both files of task `id`. */
  remove(id: string): void {
    if (!isTaskId(id)) return;
    rmSync(join(this.dir, `${id}.result.json`), { force: true });
    rmSync(join(this.dir, `${id}.json`), { force: true });
  }

  /** The ids of every task on record. */
  ids(): string[] {
    return readdirSync(this.dir)
      .filter((name) => name.endsWith('.json') && !name.endsWith('.result.json'))
      .map((name) => name.slice(0, -'.json'.length))
      .filter(isTaskId);
  }

  /** Removes temporary files a crashed process left behind. */
  removePartials(): void {
    const now = Date.now();
    for (const name of readdirSync(this.dir)) {
      if (!name.endsWith('.tmp')) continue;
      const file = join(this.dir, name);
      try {
        if (now - statSync(file).mtimeMs > STALE_PARTIAL_MS) rmSync(file, { force: true });
      } catch {
        // gone already
      }
    }
  }
}

/**
 * The task records of one server in `<outDir>/state/tasks/<taskId>.json` (and `<taskId>.result.json`): a
 * {@link TaskFolder}. Atomic within one process (each method reads and writes synchronously); a second server on the
 * same project shares the files but not the atomicity, as before.
 */
export class FileTaskRecords implements TaskRecords {
  readonly #folder: TaskFolder;

  /** The records of the project whose build output is `outDir`. */
  constructor(outDir: string) {
    this.#folder = new TaskFolder(join(outDir, 'state', 'tasks'));
  }

  async prepare(): Promise<void> {
    this.#folder.removePartials();
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    return this.#read(taskId);
  }

  async byPrincipal(principal: string): Promise<TaskRecord[]> {
    return this.#all().filter((r) => r.principal === principal);
  }

  async unfinished(): Promise<TaskRecord[]> {
    return this.#all().filter((r) => r.endedAt === undefined);
  }

  async byRun(runId: string): Promise<TaskRecord | undefined> {
    return this.#all().find((r) => r.runIds.includes(runId));
  }

  async insert(record: TaskRecord, makeRoom: (mine: TaskRecord[]) => string[]): Promise<void> {
    const mine = this.#all().filter((r) => r.principal === record.principal);
    for (const id of makeRoom(mine)) this.#folder.remove(id);
    this.#write(record);
  }

  async update(taskId: string, change: (record: TaskRecord) => TaskChange | undefined): Promise<TaskRecord | undefined> {
    const record = this.#read(taskId);
    const next = record && change(record);
    if (!next) return record;
    if (next.resultText !== undefined) this.#folder.write(taskId, next.resultText, '.result');
    this.#write(next.record);
    return next.record;
  }

  async result(taskId: string): Promise<unknown> {
    return this.#folder.read(taskId, '.result');
  }

  async remove(taskId: string): Promise<void> {
    this.#folder.remove(taskId);
  }

  async removeExpired(now: number): Promise<void> {
    for (const record of this.#all()) if (expiresAt(record) <= now) this.#folder.remove(record.task.taskId);
  }

  #all(): TaskRecord[] {
    return this.#folder.ids().flatMap((id) => this.#read(id) ?? []).sort(byAge);
  }

  #read(taskId: string): TaskRecord | undefined {
    const record = this.#folder.read(taskId);
    return isTaskRecord(record, taskId) ? record : undefined;
  }

  #write(record: TaskRecord): void {
    this.#folder.write(record.task.taskId, JSON.stringify(record));
  }
}
