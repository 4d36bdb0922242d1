import { randomUUID } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AgentSpacesError } from '@agent-spaces/capabilities';

/** Ids a file store accepts as file names: letters, digits, `_` and `-`, at most 128 (anything else is not found). */
const SAFE_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** True when `id` may name a record file (ids come from clients: never a path, never long). */
export function isSafeId(id: unknown): id is string {
  return typeof id === 'string' && SAFE_ID.test(id);
}

/** The folder of durable state of the project whose build output is `outDir`: `<outDir>/state/<kind>`. */
export function stateFolder(outDir: string, kind: 'approvals' | 'runs' | 'sessions' | 'tasks'): string {
  return join(outDir, 'state', kind);
}

/**
 * A folder of JSON records, one file per id, written atomically (a temporary file renamed or linked into place), so
 * another process never reads half a record; readable by the process's user only (records hold redacted params and
 * results, which may still be private). Synchronous: a record must be durable before the step that needs it
 * goes on (a call runs only after its run is on record as resumed).
 */
export class RecordFolder {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  /** The record `name` (an id, or an id with a suffix), or undefined when there is none or it cannot be read. */
  read<T>(name: string): T | undefined {
    try {
      return JSON.parse(readFileSync(join(this.dir, `${name}.json`), 'utf8')) as T;
    } catch {
      return undefined;
    }
  }

  /** Writes record `name`, replacing any. */
  write(name: string, value: unknown): void {
    const partial = this.#partial(value);
    renameSync(partial, join(this.dir, `${name}.json`));
  }

  /** Writes record `name` only when there is none: false (nothing written) when one exists. Atomic across processes. */
  create(name: string, value: unknown): boolean {
    const partial = this.#partial(value);
    try {
      linkSync(partial, join(this.dir, `${name}.json`));
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw new AgentSpacesError('INTERNAL', `Could not write ${name} in ${this.dir}: ${(error as Error).message}`);
    } finally {
      rmSync(partial, { force: true });
    }
  }

  /** Removes record `name` (nothing when there is none). */
  remove(name: string): void {
    rmSync(join(this.dir, `${name}.json`), { force: true });
  }

  /** The names of the records in the folder (file names without `.json`). */
  names(): string[] {
    try {
      return readdirSync(this.dir)
        .filter((file) => file.endsWith('.json'))
        .map((file) => file.slice(0, -'.json'.length));
    } catch {
      return [];
    }
  }

  #partial(value: unknown): string {
    const partial = join(this.dir, `.${randomUUID()}.partial`);
    writeFileSync(partial, JSON.stringify(value), { mode: 0o600 });
    return partial;
  }
}
