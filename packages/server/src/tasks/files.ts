import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Task ids are `randomUUID()`s: anything else names no task (and is never used as a path). */
const TASK_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A temporary file older than this is left over from a crash (a younger one may be another process's write). */
const STALE_PARTIAL_MS = 60_000;

/** True when `id` can be a task id: a lowercase UUID string, so it can never name a path outside the folder. */
export function isTaskId(id: unknown): id is string {
  return typeof id === 'string' && TASK_ID.test(id);
}

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
