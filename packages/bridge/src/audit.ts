import { closeSync, fstatSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AgentSpacesError, type ErrorCode } from '@agent-spaces/capabilities';

/** Params longer than this (as JSON) are stored as a truncated preview. */
const MAX_PARAMS_CHARS = 8_192;

/** One line of the audit log: one capability call, as it ended. */
export interface AuditRecord {
  /** When the call ended (ISO-8601). */
  time: string;
  space: string;
  runId?: string;
  sessionId?: string;
  /** The bridge's call id (also the id of its approval request, if one was made). */
  callId: string;
  capability: string;
  function: string;
  /** Params with secrets redacted (`{ truncated: true, preview }` past 8 KiB of JSON). */
  params: unknown;
  /** Absent when the call never reached the policy (unknown capability or function, invalid params). */
  decision?: {
    kind: 'allow' | 'deny' | 'ask';
    /** What decided: a rule (`policies.rules["crm"]`), `requiresApproval`, `default`, `toolPermission: …`, `policy`. */
    by: string;
    /** For `ask`: the answer and who gave it (`approver`, `resolve`, `timeout`, `no-approver`, `cli-prompt`, …). */
    approved?: boolean;
    answeredBy?: string;
    reason?: string;
  };
  outcome: { ok: true } | { ok: false; code: ErrorCode; message: string };
  durationMs: number;
}

/** An {@link AuditRecord} as the bridge makes it; the log adds the space. */
export type AuditEntry = Omit<AuditRecord, 'space'>;

/** Receives one entry per call; `append` must not return before the entry is durable. */
export interface AuditSink {
  append(entry: AuditEntry): void;
}

/** Where a space's audit log lives: `<outDir>/audit/<space>.jsonl`. */
export function auditLogFile(outDir: string, space: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(space)) {
    throw new AgentSpacesError('CONFIG_INVALID', `The space name ${JSON.stringify(space)} cannot name an audit log (use letters, digits, . _ -)`, { space });
  }
  return join(outDir, 'audit', `${space}.jsonl`);
}

/**
 * An append-only JSON Lines file. Each record is one `write` of a whole line on a descriptor opened for appending:
 * when `append` returns, the line is in the kernel's hands, so a `kill -9` of the host loses no completed call. The
 * kill can stop a write part-way (Linux checks for it before copying each page of the file), leaving a partial last
 * line of a call that never completed; opening the log removes it, so it never runs into the next line. With
 * `fsync: true` each line is also flushed to the disk (it then survives power loss too, at about 0.2 ms per call:
 * bench/policies.mjs).
 */
export class AuditLog implements AuditSink {
  #fd: number | undefined;
  readonly #fsync: boolean;
  readonly #spaceJson: string;
  readonly #quoted = quoter();

  /** Opens (creating folder and file as needed) `file` for appending the records of `space`. */
  constructor(
    readonly file: string,
    readonly space: string,
    options: { fsync?: boolean } = {},
  ) {
    mkdirSync(dirname(file), { recursive: true });
    this.#fd = openSync(file, 'a+', 0o600);
    dropPartialLine(this.#fd);
    this.#fsync = options.fsync ?? false;
    this.#spaceJson = JSON.stringify(space);
  }

  /** Writes `entry` as one line (and flushes it to disk with `fsync`). Throws when the log is closed or the write fails. */
  append(entry: AuditEntry): void {
    if (this.#fd === undefined) throw new AgentSpacesError('INTERNAL', `The audit log ${this.file} is closed`);
    const line = this.#serialize(entry);
    // One write of the whole line; the rest is written only if the kernel took part of it (it does not for files).
    const written = writeSync(this.#fd, line);
    if (written < Buffer.byteLength(line)) {
      const bytes = Buffer.from(line);
      for (let at = written; at < bytes.length; ) at += writeSync(this.#fd, bytes, at, bytes.length - at);
    }
    if (this.#fsync) fsyncSync(this.#fd);
  }

  /**
   * The JSON line of an {@link AuditRecord}, keys in its order, written out directly: one is made per call. Strings
   * that repeat from call to call (the time within a millisecond, the run, the capability and function) are quoted
   * once, through {@link quoted}.
   */
  #serialize(entry: AuditEntry): string {
    const q = this.#quoted;
    let line = `{"time":${q(entry.time)},"space":${this.#spaceJson}`;
    if (entry.runId !== undefined) line += `,"runId":${q(entry.runId)}`;
    if (entry.sessionId !== undefined) line += `,"sessionId":${q(entry.sessionId)}`;
    line += `,"callId":${JSON.stringify(entry.callId)},"capability":${q(entry.capability)}`;
    line += `,"function":${q(entry.function)},"params":${paramsJson(entry.params)}`;
    if (entry.decision !== undefined) line += `,"decision":${JSON.stringify(entry.decision)}`;
    return `${line},"outcome":${JSON.stringify(entry.outcome)},"durationMs":${JSON.stringify(entry.durationMs)}}\n`;
  }

  /** Closes the file; later appends throw. */
  close(): void {
    if (this.#fd === undefined) return;
    closeSync(this.#fd);
    this.#fd = undefined;
  }
}

let lastMs = 0;
let lastIso = '';

/** `new Date().toISOString()`, formatted once per millisecond: audit lines and run events are stamped by the thousand. */
export function isoNow(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastIso = new Date(now).toISOString();
  }
  return lastIso;
}

/** The records of an audit log (optionally only those at or after `since`), and how many lines could not be parsed. */
export function readAuditLog(file: string, options: { since?: Date } = {}): { records: AuditRecord[]; malformed: number } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], malformed: 0 };
    throw new AgentSpacesError('SOURCE_UNREADABLE', `Cannot read the audit log ${file}: ${(error as Error).message}`, { file });
  }
  const records: AuditRecord[] = [];
  let malformed = 0;
  const since = options.since?.getTime();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    let record: AuditRecord;
    try {
      record = JSON.parse(line) as AuditRecord;
    } catch {
      malformed++;
      continue;
    }
    if (since === undefined || Date.parse(record.time) >= since) records.push(record);
  }
  return { records, malformed };
}

/** Cuts a partial last line (one not ended by a newline) off the file open as `fd`. */
function dropPartialLine(fd: number): void {
  const size = fstatSync(fd).size;
  const chunk = Buffer.alloc(Math.min(size, 4096));
  let keep = 0;
  for (let end = size; end > 0; ) {
    const start = Math.max(0, end - chunk.length);
    const newline = chunk.subarray(0, readSync(fd, chunk, 0, end - start, start)).lastIndexOf(0x0a);
    if (newline !== -1) {
      keep = start + newline + 1;
      break;
    }
    end = start;
  }
  // Unless another process has appended since: then the tail was its line, still being written.
  if (keep < size && fstatSync(fd).size === size) ftruncateSync(fd, keep);
}

/** Params as JSON: `{ truncated: true, preview }` past 8 KiB, `{ unserializable: true }` when JSON cannot hold them. */
/** `JSON.stringify` of strings, remembering the last few: audit lines repeat most of theirs. */
function quoter(): (text: string) => string {
  const recent = new Map<string, string>();
  return (text) => {
    let json = recent.get(text);
    if (json === undefined) {
      if (recent.size >= 16) recent.clear();
      json = JSON.stringify(text);
      recent.set(text, json);
    }
    return json;
  };
}

function paramsJson(params: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(params);
  } catch {
    return '{"unserializable":true}';
  }
  if (text === undefined) return 'null';
  return text.length > MAX_PARAMS_CHARS ? JSON.stringify({ truncated: true, preview: text.slice(0, MAX_PARAMS_CHARS) }) : text;
}
