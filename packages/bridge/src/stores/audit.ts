import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { AuditLog, auditLogFile, type AuditEntry, type AuditRecord, type AuditRotation, type AuditSink } from './audit-log.js';
import { readAuditLog, streamAuditLogs, type AuditRead } from './audit-read.js';

/**
 * Where a space's audit records are kept: the bridge appends one per call (and one as a call starts waiting for
 * approval), and a new space reads the recent calls back to rebuild its rate-limit windows.
 */
export interface AuditStore extends AuditSink {
  /**
   * Puts `entry` on record (the store adds the space). The call's outcome waits for it: synchronously in the embedded
   * store, for its promise in a shared one. It must not return (or resolve) before the entry is durable; when it throws
   * or rejects the call fails closed (`INTERNAL`, or `STORE_UNAVAILABLE` when the store says so).
   */
  append(entry: AuditEntry): void | Promise<void>;
  /** The ended calls at or after `since`, oldest first (lines of calls that started waiting are left out). */
  calls(since: Date): Promise<AuditRead>;
  /** Stops writing; later appends throw. */
  close(): void;
}

/** Options of {@link FileAuditStore}: `fsync` flushes each line to disk; `rotation: false` never rotates. */
export interface FileAuditStoreOptions {
  fsync?: boolean;
  rotation?: AuditRotation | false;
}

/**
 * The embedded {@link AuditStore}: the JSON Lines file `<outDir>/audit/<space>.jsonl` ({@link AuditLog}), rotated by
 * size, read back from its end.
 */
export class FileAuditStore implements AuditStore {
  /** The log's file (its rotated files sit beside it). */
  readonly file: string;
  readonly #log: AuditLog;

  /** Opens (creating it as needed) the log of `space` under `outDir`; `CONFIG_INVALID` when the name cannot name a file. */
  constructor(outDir: string, space: string, options: FileAuditStoreOptions = {}) {
    this.file = auditLogFile(outDir, space);
    this.#log = new AuditLog(this.file, space, options);
  }

  append(entry: AuditEntry): void {
    this.#log.append(entry);
  }

  async calls(since: Date): Promise<AuditRead> {
    return readAuditLog(this.file, { since });
  }

  close(): void {
    this.#log.close();
  }
}

/** What {@link AuditArchive.records} reads: one space's records (default every space's), from `since` on. */
export interface AuditQuery {
  space?: string;
  since?: Date;
  /** Hears of each stored record that cannot be read (a corrupt line). */
  onMalformed?: () => void;
}

/**
 * The read side of a project's audit records, every space's (`agent-spaces audit`): what the {@link AuditStore}s of
 * its spaces appended, lines of calls that started waiting for approval included.
 */
export interface AuditArchive {
  /**
   * The records `query` selects, oldest first (the records of several spaces merged by time), streamed: an archive of
   * any size is read record by record. Throws `CONFIG_INVALID` at once for a space name no store could hold.
   */
  records(query?: AuditQuery): AsyncIterable<AuditRecord>;
}

/** The embedded {@link AuditArchive}: the logs of {@link FileAuditStore} under `<outDir>/audit/`, rotated files included. */
export class FileAuditArchive implements AuditArchive {
  readonly #dir: string;

  /** The archive of the project whose build output is `outDir` (its logs are in `<outDir>/audit/`). */
  constructor(readonly outDir: string) {
    this.#dir = join(outDir, 'audit');
  }

  records(query: AuditQuery = {}): AsyncIterable<AuditRecord> {
    const { space, since, onMalformed } = query;
    const files = space !== undefined ? Promise.resolve([auditLogFile(this.outDir, space)]) : this.#allLogs();
    return (async function* () {
      yield* streamAuditLogs(await files, { ...(since ? { since } : {}), ...(onMalformed ? { onMalformed } : {}) });
    })();
  }

  async #allLogs(): Promise<string[]> {
    try {
      return (await readdir(this.#dir)).filter((name) => name.endsWith('.jsonl')).map((name) => join(this.#dir, name));
    } catch {
      return [];
    }
  }
}
